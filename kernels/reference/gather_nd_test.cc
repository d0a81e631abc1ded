// Tests of GatherND and GatherElements: the ONNX examples, random shapes against a direct
// evaluation, negative indices, bool and i32 paths, and bad indices refused with a clear error.
#include <gtest/gtest.h>

#include <random>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::Const;
using testing::In;
using testing::Make;
using testing::MakeF32;
using testing::MakeI64;
using testing::Read;
using testing::RunSingleOp;

Attributes Int(const char* name, int64_t v) {
  Attributes a;
  a.Set(name, v);
  return a;
}

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

// Row-major flat offset of `pos` in `shape`.
int64_t Offset(const Shape& shape, const std::vector<int64_t>& pos) {
  int64_t off = 0;
  for (size_t d = 0; d < shape.size(); ++d) off = off * shape[d] + pos[d];
  return off;
}

// The multi-index of flat element `e` of `shape`.
std::vector<int64_t> Unflatten(const Shape& shape, int64_t e) {
  std::vector<int64_t> pos(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    pos[d] = e % shape[d];
    e /= shape[d];
  }
  return pos;
}

TEST(GatherNDTest, OnnxExamples) {
  // data [[0,1],[2,3]]: indices [[0,0],[1,1]] pick elements, [[1],[0]] pick rows.
  auto elems = RunSingleOp(OpType::kGatherND, {},
                           {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({2, 2}, {0, 0, 1, 1}))});
  ASSERT_TRUE(elems.ok()) << elems.status().ToString();
  EXPECT_EQ((*elems)[0].shape, (Shape{2}));
  EXPECT_EQ(Read<float>((*elems)[0]), (std::vector<float>{0, 3}));
  auto rows = RunSingleOp(OpType::kGatherND, {},
                          {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({2, 1}, {1, 0}))});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ((*rows)[0].shape, (Shape{2, 2}));
  EXPECT_EQ(Read<float>((*rows)[0]), (std::vector<float>{2, 3, 0, 1}));
  // batch_dims=1: data [2,2,2], indices [[1],[0]] -> batch 0 row 1, batch 1 row 0.
  auto batched = RunSingleOp(OpType::kGatherND, Int("batch_dims", 1),
                             {In(MakeF32({2, 2, 2}, Iota(8))), In(MakeI64({2, 1}, {1, 0}))});
  ASSERT_TRUE(batched.ok()) << batched.status().ToString();
  EXPECT_EQ((*batched)[0].shape, (Shape{2, 2}));
  EXPECT_EQ(Read<float>((*batched)[0]), (std::vector<float>{2, 3, 4, 5}));
}

TEST(GatherNDTest, RandomShapesMatchDirectEvaluation) {
  std::mt19937 rng(391);
  std::uniform_int_distribution<int> dim_d(1, 4);
  for (int trial = 0; trial < 60; ++trial) {
    const int r = std::uniform_int_distribution<int>(1, 4)(rng);
    const int b = std::uniform_int_distribution<int>(0, r - 1)(rng);
    const int k = std::uniform_int_distribution<int>(1, r - b)(rng);
    const int extra = std::uniform_int_distribution<int>(0, 2)(rng);  // tuple dims past batch
    Shape data;
    for (int d = 0; d < r; ++d) data.push_back(dim_d(rng));
    Shape indices(data.begin(), data.begin() + b);
    for (int d = 0; d < extra; ++d) indices.push_back(dim_d(rng));
    indices.push_back(k);
    std::vector<int64_t> idx(static_cast<size_t>(NumElements(indices)));
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t dim = data[static_cast<size_t>(b) + i % static_cast<size_t>(k)];
      idx[i] = std::uniform_int_distribution<int64_t>(-dim, dim - 1)(rng);  // negatives too
    }
    const std::vector<float> values = Iota(NumElements(data));
    const bool as_i32 = trial % 2 == 1;
    std::vector<int32_t> idx32(idx.begin(), idx.end());
    auto out = RunSingleOp(
        OpType::kGatherND, Int("batch_dims", b),
        {In(MakeF32(data, values)),
         In(as_i32 ? Make<int32_t>(DType::kI32, indices, idx32) : MakeI64(indices, idx))});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    Shape want_shape(indices.begin(), indices.end() - 1);
    want_shape.insert(want_shape.end(), data.begin() + b + k, data.end());
    ASSERT_EQ((*out)[0].shape, want_shape) << ShapeToString(data) << " " << ShapeToString(indices);
    const std::vector<float> got = Read<float>((*out)[0]);
    for (int64_t e = 0; e < NumElements(want_shape); ++e) {
      // Output position = (batch..., tuple..., slice...): data position = batch, the tuple's
      // indices (wrapped), slice.
      const std::vector<int64_t> o = Unflatten(want_shape, e);
      const size_t tuple_rank = indices.size() - 1;
      std::vector<int64_t> ipos(o.begin(), o.begin() + static_cast<std::ptrdiff_t>(tuple_rank));
      ipos.push_back(0);
      std::vector<int64_t> dpos(o.begin(), o.begin() + b);
      for (int j = 0; j < k; ++j) {
        ipos.back() = j;
        int64_t v = idx[static_cast<size_t>(Offset(indices, ipos))];
        if (v < 0) v += data[static_cast<size_t>(b + j)];
        dpos.push_back(v);
      }
      dpos.insert(dpos.end(), o.begin() + static_cast<std::ptrdiff_t>(tuple_rank), o.end());
      ASSERT_EQ(got[static_cast<size_t>(e)], values[static_cast<size_t>(Offset(data, dpos))])
          << "element " << e << " of " << ShapeToString(data) << " / " << ShapeToString(indices)
          << " batch_dims " << b;
    }
  }
}

TEST(GatherNDTest, BoolDataAsTheMaskPatternUses) {
  // MiniLM's attention mask: a bool [1, 4] gathered by [[0, 3], [0, -4]].
  auto out = RunSingleOp(
      OpType::kGatherND, {},
      {In(Make<uint8_t>(DType::kBool, {1, 4}, {1, 0, 0, 1})), In(MakeI64({2, 2}, {0, 3, 0, -4}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype, DType::kBool);
  EXPECT_EQ(Read<uint8_t>((*out)[0]), (std::vector<uint8_t>{1, 1}));
}

TEST(GatherNDTest, BadIndicesAndShapesFailClearly) {
  // Runtime index past the end (and before the start): the kernel names the value.
  for (int64_t bad : {2, -3}) {
    auto rt = RunSingleOp(OpType::kGatherND, {},
                          {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({1, 2}, {1, bad}))});
    ASSERT_FALSE(rt.ok());
    EXPECT_NE(rt.status().message().find("index " + std::to_string(bad)), std::string::npos)
        << rt.status().ToString();
    EXPECT_NE(rt.status().message().find("out of range"), std::string::npos);
  }
  // Constant indices are checked at compile time.
  auto ct = RunSingleOp(OpType::kGatherND, {},
                        {In(MakeF32({2, 2}, Iota(4))), Const(MakeI64({1, 1}, {5}))});
  ASSERT_FALSE(ct.ok());
  EXPECT_NE(ct.status().message().find("out of range"), std::string::npos);
  // Last indices dim larger than the data rank; batch_dims too large; batch dims differing;
  // float indices.
  EXPECT_FALSE(RunSingleOp(OpType::kGatherND, {},
                           {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({1, 3}, {0, 0, 0}))})
                   .ok());
  EXPECT_FALSE(RunSingleOp(OpType::kGatherND, Int("batch_dims", 2),
                           {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({2, 1}, {0, 0}))})
                   .ok());
  EXPECT_FALSE(RunSingleOp(OpType::kGatherND, Int("batch_dims", 1),
                           {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({3, 1}, {0, 0, 0}))})
                   .ok());
  EXPECT_FALSE(
      RunSingleOp(OpType::kGatherND, {}, {In(MakeF32({2, 2}, Iota(4))), In(MakeF32({1, 1}, {0}))})
          .ok());
}

TEST(GatherElementsTest, OnnxExamples) {
  auto a1 = RunSingleOp(OpType::kGatherElements, Int("axis", 1),
                        {In(MakeF32({2, 2}, {1, 2, 3, 4})), In(MakeI64({2, 2}, {0, 0, 1, 0}))});
  ASSERT_TRUE(a1.ok()) << a1.status().ToString();
  EXPECT_EQ(Read<float>((*a1)[0]), (std::vector<float>{1, 1, 4, 3}));
  // axis 0 with fewer index rows than data rows, and negative indices (-1 = last row).
  auto a0 = RunSingleOp(
      OpType::kGatherElements, {},
      {In(MakeF32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})), In(MakeI64({2, 3}, {1, 2, 0, 2, 0, 0}))});
  ASSERT_TRUE(a0.ok()) << a0.status().ToString();
  EXPECT_EQ((*a0)[0].shape, (Shape{2, 3}));
  EXPECT_EQ(Read<float>((*a0)[0]), (std::vector<float>{4, 8, 3, 7, 2, 3}));
  auto neg = RunSingleOp(OpType::kGatherElements, {},
                         {In(MakeF32({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})),
                          In(Make<int32_t>(DType::kI32, {2, 3}, {-1, -2, 0, -3, 1, 2}))});
  ASSERT_TRUE(neg.ok()) << neg.status().ToString();
  EXPECT_EQ(Read<float>((*neg)[0]), (std::vector<float>{7, 5, 3, 1, 5, 9}));
}

TEST(GatherElementsTest, RandomShapesMatchDirectEvaluation) {
  std::mt19937 rng(392);
  std::uniform_int_distribution<int> dim_d(1, 4);
  for (int trial = 0; trial < 60; ++trial) {
    const int r = std::uniform_int_distribution<int>(1, 4)(rng);
    const int axis = std::uniform_int_distribution<int>(0, r - 1)(rng);
    Shape data, indices;
    for (int d = 0; d < r; ++d) {
      data.push_back(dim_d(rng));
      // Off the axis at most data's extent; along it any count.
      indices.push_back(d == axis ? dim_d(rng)
                                  : std::uniform_int_distribution<int64_t>(1, data.back())(rng));
    }
    std::vector<int64_t> idx(static_cast<size_t>(NumElements(indices)));
    const int64_t dim = data[static_cast<size_t>(axis)];
    for (auto& v : idx) v = std::uniform_int_distribution<int64_t>(-dim, dim - 1)(rng);
    // i64 data exercises the 8-byte path, f32 the 4-byte one.
    std::vector<int64_t> values(static_cast<size_t>(NumElements(data)));
    for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<int64_t>(i) * 7 - 3;
    const int64_t signed_axis = trial % 2 ? axis - r : axis;
    auto out = RunSingleOp(OpType::kGatherElements, Int("axis", signed_axis),
                           {In(MakeI64(data, values)), In(MakeI64(indices, idx))});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[0].shape, indices);
    const std::vector<int64_t> got = Read<int64_t>((*out)[0]);
    for (int64_t e = 0; e < NumElements(indices); ++e) {
      std::vector<int64_t> pos = Unflatten(indices, e);
      int64_t v = idx[static_cast<size_t>(e)];
      pos[static_cast<size_t>(axis)] = v < 0 ? v + dim : v;
      ASSERT_EQ(got[static_cast<size_t>(e)], values[static_cast<size_t>(Offset(data, pos))])
          << ShapeToString(data) << " / " << ShapeToString(indices) << " axis " << axis;
    }
  }
}

TEST(GatherElementsTest, BadIndicesAndShapesFailClearly) {
  auto rt = RunSingleOp(OpType::kGatherElements, {},
                        {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({1, 2}, {0, -3}))});
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("index -3"), std::string::npos) << rt.status().ToString();
  auto ct = RunSingleOp(OpType::kGatherElements, {},
                        {In(MakeF32({2, 2}, Iota(4))), Const(MakeI64({1, 2}, {0, 2}))});
  ASSERT_FALSE(ct.ok());
  EXPECT_NE(ct.status().message().find("out of range"), std::string::npos);
  // Rank mismatch; indices wider than data off the axis; axis out of range.
  EXPECT_FALSE(RunSingleOp(OpType::kGatherElements, {},
                           {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({2}, {0, 0}))})
                   .ok());
  auto wide = RunSingleOp(OpType::kGatherElements, {},
                          {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({1, 3}, {0, 0, 0}))});
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("exceed"), std::string::npos);
  EXPECT_FALSE(RunSingleOp(OpType::kGatherElements, Int("axis", 2),
                           {In(MakeF32({2, 2}, Iota(4))), In(MakeI64({2, 2}, {0, 0, 0, 0}))})
                   .ok());
}

}  // namespace
}  // namespace kiln
