// Tests of Slice: negative steps, clamping, default/negative axes, i32 parameters, other
// dtypes and invalid parameters. Expected values from numpy basic slicing.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "tests/op_runner.h"

namespace kiln {
namespace {

using testing::MakeF32;
using testing::MakeI64;
using testing::OpInput;
using testing::RunSingleOp;
using testing::ToF32;

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

OpInput Ints(std::vector<int64_t> v) {
  return {MakeI64({static_cast<int64_t>(v.size())}, v), true};
}

TEST(SliceTest, NegativeStepsAndSentinels) {
  // numpy: x[1:3, ::-2, -1:-6:-3] on arange(60).reshape(3,4,5)
  auto out = RunSingleOp(OpType::kSlice, {},
                         {{MakeF32({3, 4, 5}, Iota(60))},
                          Ints({1, -1, -1}),
                          Ints({3, kMin, -6}),
                          Ints({0, 1, 2}),
                          Ints({1, -2, -3})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 2, 2}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{39, 36, 29, 26, 59, 56, 49, 46}));
}

TEST(SliceTest, ClampsOutOfBoundsAndDefaultsAxes) {
  // starts/ends for axes 0 and 1 only (default axes): x[-100:2, 1:kMax]
  auto out = RunSingleOp(OpType::kSlice, {},
                         {{MakeF32({3, 4, 5}, Iota(60))}, Ints({-100, 1}), Ints({2, kMax})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 3, 5}));
  EXPECT_EQ(ToF32((*out)[0])[0], 5.0f);    // x[0,1,0]
  EXPECT_EQ(ToF32((*out)[0])[29], 39.0f);  // x[1,3,4]
}

TEST(SliceTest, NegativeAxesWithStep) {
  // x[-100:2, :, 1:5:2] via axes {-1, 0}
  auto out = RunSingleOp(
      OpType::kSlice, {},
      {{MakeF32({3, 4, 5}, Iota(60))}, Ints({1, -100}), Ints({5, 2}), Ints({-1, 0}), Ints({2, 1})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 4, 2}));
  EXPECT_EQ(ToF32((*out)[0]),
            (std::vector<float>{1, 3, 6, 8, 11, 13, 16, 18, 21, 23, 26, 28, 31, 33, 36, 38}));
}

TEST(SliceTest, EmptyResultAndI32ParamsOnI64Data) {
  HostTensor starts("", DType::kI32, {1}), ends("", DType::kI32, {1});
  const int32_t s = 3, e = 1;
  std::memcpy(starts.bytes.data(), &s, 4);
  std::memcpy(ends.bytes.data(), &e, 4);
  auto empty = RunSingleOp(OpType::kSlice, {},
                           {{MakeI64({4}, {10, 20, 30, 40})}, {starts, true}, {ends, true}});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape, (Shape{0}));
  EXPECT_EQ((*empty)[0].dtype, DType::kI64);

  auto rev = RunSingleOp(
      OpType::kSlice, {},
      {{MakeI64({4}, {10, 20, 30, 40})}, {starts, true}, {ends, true}, Ints({0}), Ints({-1})});
  ASSERT_TRUE(rev.ok()) << rev.status().ToString();
  EXPECT_EQ((*rev)[0].shape, (Shape{2}));
  EXPECT_EQ((*rev)[0].data<int64_t>()[0], 40);
  EXPECT_EQ((*rev)[0].data<int64_t>()[1], 30);
}

TEST(SliceTest, RejectsBadParameters) {
  auto x = MakeF32({3, 4}, Iota(12));
  // zero step, repeated axis, axis out of range, length mismatch, non-constant starts
  EXPECT_FALSE(
      RunSingleOp(OpType::kSlice, {}, {{x}, Ints({0}), Ints({2}), Ints({0}), Ints({0})}).ok());
  EXPECT_FALSE(
      RunSingleOp(OpType::kSlice, {}, {{x}, Ints({0, 0}), Ints({1, 1}), Ints({1, -1})}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kSlice, {}, {{x}, Ints({0}), Ints({1}), Ints({2})}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kSlice, {}, {{x}, Ints({0, 1}), Ints({1})}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kSlice, {}, {{x}, {MakeI64({1}, {0})}, Ints({1})}).ok());
}

}  // namespace
}  // namespace kiln
