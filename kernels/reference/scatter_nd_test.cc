// Tests of ScatterND and ScatterElements: the ONNX examples, every reduction, duplicates,
// negative indices, random shapes against a direct evaluation, and bad input refused clearly.
#include <gtest/gtest.h>

#include <limits>
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

Attributes Attrs(const std::string& reduction, int64_t axis = 0) {
  Attributes a;
  a.Set("reduction", reduction);
  a.Set("axis", axis);
  return a;
}

Attributes Reduction(const std::string& reduction) {
  Attributes a;
  a.Set("reduction", reduction);
  return a;
}

std::vector<float> Iota(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

TEST(ScatterNDTest, OnnxExampleAndReductions) {
  // data [1..8], indices [[4],[3],[1],[7]], updates [9,10,11,12].
  const auto data = MakeF32({8}, {1, 2, 3, 4, 5, 6, 7, 8});
  const auto idx = MakeI64({4, 1}, {4, 3, 1, 7});
  const auto upd = MakeF32({4}, {9, 10, 11, 12});
  auto none = RunSingleOp(OpType::kScatterND, {}, {In(data), In(idx), In(upd)});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ(Read<float>((*none)[0]), (std::vector<float>{1, 11, 3, 10, 9, 6, 7, 12}));
  // Duplicate index 0 twice: add accumulates, mul multiplies, max/min pick; none: last wins.
  const auto dup = MakeI64({3, 1}, {0, 0, 2});
  const auto dupd = MakeF32({3}, {5, -2, 4});
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {{"none", {-2, 2, 4, 4}},
                                                                         {"add", {4, 2, 7, 4}},
                                                                         {"mul", {-10, 2, 12, 4}},
                                                                         {"max", {5, 2, 4, 4}},
                                                                         {"min", {-2, 2, 3, 4}}};
  for (const auto& [r, want] : cases) {
    auto out = RunSingleOp(OpType::kScatterND, Reduction(r),
                           {In(MakeF32({4}, {1, 2, 3, 4})), In(dup), In(dupd)});
    ASSERT_TRUE(out.ok()) << r << ": " << out.status().ToString();
    EXPECT_EQ(Read<float>((*out)[0]), want) << r;
  }
}

TEST(ScatterNDTest, SlicesNegativeIndicesAndIntegers) {
  // data [2,2,2] i64; tuples of length 1 replace whole [2,2] slices; -1 is the last one.
  std::vector<int64_t> d(8);
  for (int i = 0; i < 8; ++i) d[static_cast<size_t>(i)] = i;
  auto out = RunSingleOp(OpType::kScatterND, Reduction("add"),
                         {In(MakeI64({2, 2, 2}, d)), In(MakeI64({1, 1}, {-1})),
                          In(MakeI64({1, 2, 2}, {10, 20, 30, 40}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Read<int64_t>((*out)[0]), (std::vector<int64_t>{0, 1, 2, 3, 14, 25, 36, 47}));
  // Integer add wraps instead of overflowing.
  auto wrap = RunSingleOp(OpType::kScatterND, Reduction("add"),
                          {In(Make<int8_t>(DType::kI8, {1}, {127})), In(MakeI64({1, 1}, {0})),
                           In(Make<int8_t>(DType::kI8, {1}, {1}))});
  ASSERT_TRUE(wrap.ok()) << wrap.status().ToString();
  EXPECT_EQ(Read<int8_t>((*wrap)[0]), (std::vector<int8_t>{-128}));
}

TEST(ScatterNDTest, BadInputFailsClearly) {
  const auto data = MakeF32({2, 2}, Iota(4));
  auto rt = RunSingleOp(OpType::kScatterND, {},
                        {In(data), In(MakeI64({1, 2}, {0, 2})), In(MakeF32({1}, {9}))});
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("index 2"), std::string::npos) << rt.status().ToString();
  auto ct = RunSingleOp(OpType::kScatterND, {},
                        {In(data), Const(MakeI64({1, 2}, {-3, 0})), In(MakeF32({1}, {9}))});
  ASSERT_FALSE(ct.ok());
  EXPECT_NE(ct.status().message().find("out of range"), std::string::npos);
  auto shape = RunSingleOp(OpType::kScatterND, {},
                           {In(data), In(MakeI64({1, 1}, {0})), In(MakeF32({1}, {9}))});
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("updates"), std::string::npos);
  auto red = RunSingleOp(OpType::kScatterND, Reduction("sum"),
                         {In(data), In(MakeI64({1, 2}, {0, 0})), In(MakeF32({1}, {9}))});
  ASSERT_FALSE(red.ok());
  EXPECT_NE(red.status().message().find("reduction 'sum'"), std::string::npos);
  EXPECT_FALSE(RunSingleOp(OpType::kScatterND, {},
                           {In(data), In(MakeI64({1, 2}, {0, 0})), In(MakeI64({1}, {9}))})
                   .ok());
}

TEST(ScatterElementsTest, OnnxExamplesAndReductions) {
  // axis 0: data zeros [3,3], indices [[1,0,2],[0,2,1]], updates [[1,1.1,1.2],[2,2.1,2.2]].
  auto a0 = RunSingleOp(
      OpType::kScatterElements, {},
      {In(MakeF32({3, 3}, std::vector<float>(9, 0.f))), In(MakeI64({2, 3}, {1, 0, 2, 0, 2, 1})),
       In(MakeF32({2, 3}, {1.f, 1.1f, 1.2f, 2.f, 2.1f, 2.2f}))});
  ASSERT_TRUE(a0.ok()) << a0.status().ToString();
  EXPECT_EQ(Read<float>((*a0)[0]),
            (std::vector<float>{2.f, 1.1f, 0.f, 1.f, 0.f, 2.2f, 0.f, 2.1f, 1.2f}));
  // axis 1, duplicates [[1, 1]] on data [[1,2,3,4,5]] with updates [[1.1, 2.1]].
  const std::vector<std::pair<std::string, std::vector<float>>> cases = {
      {"none", {1.f, 2.1f, 3.f, 4.f, 5.f}},
      {"add", {1.f, 5.2f, 3.f, 4.f, 5.f}},
      {"mul", {1.f, 2.f * 1.1f * 2.1f, 3.f, 4.f, 5.f}},
      {"max", {1.f, 2.1f, 3.f, 4.f, 5.f}},
      {"min", {1.f, 1.1f, 3.f, 4.f, 5.f}}};
  for (const auto& [r, want] : cases) {
    auto out = RunSingleOp(OpType::kScatterElements, Attrs(r, 1),
                           {In(MakeF32({1, 5}, {1, 2, 3, 4, 5})), In(MakeI64({1, 2}, {1, 1})),
                            In(MakeF32({1, 2}, {1.1f, 2.1f}))});
    ASSERT_TRUE(out.ok()) << r << ": " << out.status().ToString();
    const std::vector<float> got = Read<float>((*out)[0]);
    for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(got[i], want[i]) << r << " " << i;
  }
  // Negative index -3 on axis 1 of size 5 is column 2.
  auto neg = RunSingleOp(OpType::kScatterElements, Attrs("none", -1),
                         {In(MakeF32({1, 5}, {1, 2, 3, 4, 5})),
                          In(Make<int32_t>(DType::kI32, {1, 1}, {-3})), In(MakeF32({1, 1}, {9}))});
  ASSERT_TRUE(neg.ok()) << neg.status().ToString();
  EXPECT_EQ(Read<float>((*neg)[0]), (std::vector<float>{1, 2, 9, 4, 5}));
}

TEST(ScatterElementsTest, RandomShapesMatchDirectEvaluation) {
  std::mt19937 rng(394);
  std::uniform_int_distribution<int> dim_d(1, 4);
  for (int trial = 0; trial < 60; ++trial) {
    const int r = std::uniform_int_distribution<int>(1, 4)(rng);
    const int axis = std::uniform_int_distribution<int>(0, r - 1)(rng);
    Shape data, indices;
    for (int d = 0; d < r; ++d) {
      data.push_back(dim_d(rng));
      indices.push_back(std::uniform_int_distribution<int64_t>(1, data.back())(rng));
    }
    const int64_t dim = data[static_cast<size_t>(axis)];
    std::vector<int64_t> idx(static_cast<size_t>(NumElements(indices)));
    for (auto& v : idx) v = std::uniform_int_distribution<int64_t>(-dim, dim - 1)(rng);
    std::vector<int64_t> base(static_cast<size_t>(NumElements(data)));
    for (size_t i = 0; i < base.size(); ++i) base[i] = static_cast<int64_t>(i);
    std::vector<int64_t> upd(idx.size());
    for (size_t i = 0; i < upd.size(); ++i) upd[i] = 100 + static_cast<int64_t>(i);
    auto out = RunSingleOp(
        OpType::kScatterElements, Attrs("add", axis),
        {In(MakeI64(data, base)), In(MakeI64(indices, idx)), In(MakeI64(indices, upd))});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    // Direct: walk indices, map each position into data with the axis replaced.
    std::vector<int64_t> want = base;
    for (int64_t e = 0; e < NumElements(indices); ++e) {
      int64_t rem = e, off = 0, stride = 1;
      for (int d = r - 1; d >= 0; --d) {
        const size_t u = static_cast<size_t>(d);
        int64_t p = rem % indices[u];
        rem /= indices[u];
        if (d == axis) {
          p = idx[static_cast<size_t>(e)];
          if (p < 0) p += dim;
        }
        off += p * stride;
        stride *= data[u];
      }
      want[static_cast<size_t>(off)] += upd[static_cast<size_t>(e)];
    }
    EXPECT_EQ(Read<int64_t>((*out)[0]), want)
        << ShapeToString(data) << " / " << ShapeToString(indices) << " axis " << axis;
  }
}

TEST(ScatterElementsTest, BadInputFailsClearly) {
  const auto data = MakeF32({2, 2}, Iota(4));
  auto rt = RunSingleOp(OpType::kScatterElements, {},
                        {In(data), In(MakeI64({1, 1}, {2})), In(MakeF32({1, 1}, {9}))});
  ASSERT_FALSE(rt.ok());
  EXPECT_NE(rt.status().message().find("index 2"), std::string::npos) << rt.status().ToString();
  auto wide =
      RunSingleOp(OpType::kScatterElements, {},
                  {In(data), In(MakeI64({1, 3}, {0, 0, 0})), In(MakeF32({1, 3}, {1, 2, 3}))});
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("exceed"), std::string::npos);
  EXPECT_FALSE(RunSingleOp(OpType::kScatterElements, {},
                           {In(data), In(MakeI64({1, 2}, {0, 0})), In(MakeF32({1, 1}, {1}))})
                   .ok());
}

}  // namespace
}  // namespace kiln
