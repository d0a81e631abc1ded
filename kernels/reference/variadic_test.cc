// Tests of the variadic Max/Min/Sum/Mean kernels: pairwise folding with broadcasting.
#include "kernels/reference/variadic.h"

#include <gtest/gtest.h>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::In;
using testing::Make;
using testing::MakeF32;
using testing::Read;
using testing::RunSingleOp;
using testing::ToF32;

TEST(VariadicKernelTest, ThreeInputsBroadcastTogether) {
  // [3] , [2,1], scalar -> [2,3]
  const auto a = MakeF32({3}, {1, 5, 3});
  const auto b = MakeF32({2, 1}, {2, 4});
  const auto c = MakeF32({}, {3});
  auto max = RunSingleOp(OpType::kMax, {}, {In(a), In(b), In(c)});
  auto min = RunSingleOp(OpType::kMin, {}, {In(a), In(b), In(c)});
  auto sum = RunSingleOp(OpType::kSum, {}, {In(a), In(b), In(c)});
  auto mean = RunSingleOp(OpType::kMean, {}, {In(a), In(b), In(c)});
  ASSERT_TRUE(max.ok() && min.ok() && sum.ok() && mean.ok()) << max.status().ToString();
  EXPECT_EQ((*max)[0].shape, (Shape{2, 3}));
  EXPECT_EQ(ToF32((*max)[0]), (std::vector<float>{3, 5, 3, 4, 5, 4}));
  EXPECT_EQ(ToF32((*min)[0]), (std::vector<float>{1, 2, 2, 1, 3, 3}));
  EXPECT_EQ(ToF32((*sum)[0]), (std::vector<float>{6, 10, 8, 8, 12, 10}));
  EXPECT_EQ(ToF32((*mean)[0]), (std::vector<float>{2, 10.f / 3, 8.f / 3, 8.f / 3, 4, 10.f / 3}));
}

TEST(VariadicKernelTest, OneInputIsACopy) {
  auto out = RunSingleOp(OpType::kSum, {}, {In(MakeF32({2}, {1.5f, -2}))});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{1.5f, -2}));
}

TEST(VariadicKernelTest, HalfAndUint8) {
  // f16 [1.5,-2,3] min [[0.5],[4]] (bits from numpy).
  auto h = RunSingleOp(OpType::kMin, {},
                       {In(Make<uint16_t>(DType::kF16, {3}, {15872, 49152, 16896})),
                        In(Make<uint16_t>(DType::kF16, {2, 1}, {14336, 17408}))});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ(Read<uint16_t>((*h)[0]),
            (std::vector<uint16_t>{14336, 49152, 14336, 15872, 49152, 16896}));
  auto u = RunSingleOp(OpType::kMax, {},
                       {In(Make<uint8_t>(DType::kU8, {3}, {200, 3, 0})),
                        In(Make<uint8_t>(DType::kU8, {3}, {100, 250, 0}))});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Read<uint8_t>((*u)[0]), (std::vector<uint8_t>{200, 250, 0}));
}

TEST(VariadicKernelTest, RejectsMixedDTypes) {
  EXPECT_FALSE(RunSingleOp(OpType::kMax, {},
                           {In(MakeF32({1}, {1})), In(Make<int32_t>(DType::kI32, {1}, {1}))})
                   .ok());
}

}  // namespace
}  // namespace kiln
