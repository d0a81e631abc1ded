// Tests of the Reduce* kernels (axes attribute or input, keepdims, noop_with_empty_axes) and
// ArgMax/ArgMin.
#include "kernels/reference/reduce.h"

#include <gtest/gtest.h>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::Const;
using testing::In;
using testing::MakeF32;
using testing::MakeI64;
using testing::Read;
using testing::RunSingleOp;
using testing::ToF32;

const auto kX = MakeF32({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8});

Attributes Axes(std::vector<int64_t> axes, int64_t keepdims) {
  Attributes a;
  a.Set("axes", std::move(axes));
  a.Set("keepdims", keepdims);
  return a;
}

TEST(ReduceKernelTest, SumWithAxesInput) {
  auto out = RunSingleOp(OpType::kReduceSum, {}, {In(kX), Const(MakeI64({1}, {1}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 1, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{4, 6, 12, 14}));
}

TEST(ReduceKernelTest, SumEmptyAxes) {
  Attributes noop;
  noop.Set("noop_with_empty_axes", int64_t{1});
  auto same = RunSingleOp(OpType::kReduceSum, noop, {In(kX), Const(MakeI64({0}, {}))});
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_EQ((*same)[0].shape, (Shape{2, 2, 2}));
  EXPECT_EQ(ToF32((*same)[0]), ToF32(kX));
  auto all = RunSingleOp(OpType::kReduceSum, {}, {In(kX), Const(MakeI64({0}, {}))});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ((*all)[0].shape, (Shape{1, 1, 1}));
  EXPECT_EQ(ToF32((*all)[0]), (std::vector<float>{36}));
}

TEST(ReduceKernelTest, AttributeAxesKeepdimsAndNegativeAxes) {
  auto mean = RunSingleOp(OpType::kReduceMean, Axes({-1}, 0), {In(kX)});
  ASSERT_TRUE(mean.ok()) << mean.status().ToString();
  EXPECT_EQ((*mean)[0].shape, (Shape{2, 2}));
  EXPECT_EQ(ToF32((*mean)[0]), (std::vector<float>{1.5f, 3.5f, 5.5f, 7.5f}));

  auto prod = RunSingleOp(OpType::kReduceProd, Axes({0, 2}, 0), {In(kX)});
  ASSERT_TRUE(prod.ok());
  EXPECT_EQ((*prod)[0].shape, (Shape{2}));
  EXPECT_EQ(ToF32((*prod)[0]), (std::vector<float>{60, 672}));

  auto min = RunSingleOp(OpType::kReduceMin, Axes({1}, 1), {In(kX)});
  ASSERT_TRUE(min.ok());
  EXPECT_EQ(ToF32((*min)[0]), (std::vector<float>{1, 2, 5, 6}));

  auto l2 = RunSingleOp(OpType::kReduceL2, Axes({2}, 1), {In(kX)});
  ASSERT_TRUE(l2.ok());
  const auto v = ToF32((*l2)[0]);
  const std::vector<float> want = {2.2360679f, 5.f, 7.8102497f, 10.630146f};
  for (size_t i = 0; i < want.size(); ++i) EXPECT_FLOAT_EQ(v[i], want[i]);
}

TEST(ReduceKernelTest, DefaultReducesAllAxes) {
  auto max = RunSingleOp(OpType::kReduceMax, {}, {In(kX)});
  ASSERT_TRUE(max.ok());
  EXPECT_EQ((*max)[0].shape, (Shape{1, 1, 1}));
  EXPECT_EQ(ToF32((*max)[0]), (std::vector<float>{8}));
}

TEST(ReduceKernelTest, BadAxesAreErrors) {
  EXPECT_FALSE(RunSingleOp(OpType::kReduceMean, Axes({3}, 1), {In(kX)}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kReduceMean, Axes({1, -2}, 1), {In(kX)}).ok());
  // Axes that are not constant cannot fix the output shape.
  auto dynamic = RunSingleOp(OpType::kReduceSum, {}, {In(kX), In(MakeI64({1}, {0}))});
  ASSERT_FALSE(dynamic.ok());
  EXPECT_NE(dynamic.status().message().find("constant"), std::string::npos);
}

Attributes Arg(int64_t axis, int64_t keepdims, int64_t last) {
  Attributes a;
  a.Set("axis", axis);
  a.Set("keepdims", keepdims);
  a.Set("select_last_index", last);
  return a;
}

TEST(ArgReduceKernelTest, ArgMaxArgMin) {
  const auto x = MakeF32({2, 2}, {2, 2, 3, 10});
  auto first = RunSingleOp(OpType::kArgMax, Arg(1, 1, 0), {In(x)});
  auto last = RunSingleOp(OpType::kArgMax, Arg(-1, 1, 1), {In(x)});
  auto min = RunSingleOp(OpType::kArgMin, Arg(0, 0, 0), {In(x)});
  ASSERT_TRUE(first.ok() && last.ok() && min.ok()) << first.status().ToString();
  EXPECT_EQ((*first)[0].dtype, DType::kI64);
  EXPECT_EQ((*first)[0].shape, (Shape{2, 1}));
  EXPECT_EQ(Read<int64_t>((*first)[0]), (std::vector<int64_t>{0, 1}));
  EXPECT_EQ(Read<int64_t>((*last)[0]), (std::vector<int64_t>{1, 1}));
  EXPECT_EQ((*min)[0].shape, (Shape{2}));
  EXPECT_EQ(Read<int64_t>((*min)[0]), (std::vector<int64_t>{0, 0}));
  EXPECT_FALSE(RunSingleOp(OpType::kArgMax, Arg(2, 1, 0), {In(x)}).ok());
}

}  // namespace
}  // namespace kiln

namespace kiln {
namespace {

// ReduceMax/ReduceMin-20 on bool are any/all; over an empty axis they give false/true.
TEST(ReduceKernelTest, BoolMaxIsAnyMinIsAll) {
  HostTensor b("b", DType::kBool, {2, 3});
  const uint8_t bits[6] = {0, 1, 0, 1, 1, 1};
  std::copy(bits, bits + 6, b.bytes.begin());
  for (OpType op : {OpType::kReduceMax, OpType::kReduceMin}) {
    auto out =
        testing::RunSingleOp(op, {}, {testing::In(b), testing::Const(MakeI64({1}, {1}))}, 1, 20);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[0].dtype, DType::kBool);
    const std::vector<uint8_t> want =
        op == OpType::kReduceMax ? std::vector<uint8_t>{1, 1} : std::vector<uint8_t>{0, 1};
    EXPECT_EQ((*out)[0].bytes, want) << OpTypeName(op);
  }
  HostTensor empty("e", DType::kBool, {2, 0});
  for (OpType op : {OpType::kReduceMax, OpType::kReduceMin}) {
    auto out = testing::RunSingleOp(op, {}, {testing::In(empty), testing::Const(MakeI64({1}, {1}))},
                                    1, 20);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].bytes,
              std::vector<uint8_t>(2, op == OpType::kReduceMax ? uint8_t{0} : uint8_t{1}));
  }
}

}  // namespace
}  // namespace kiln
