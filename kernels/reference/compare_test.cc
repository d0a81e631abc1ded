// Tests of the comparisons, boolean ops and Where (bool outputs/conditions, broadcasting).
#include "kernels/reference/compare.h"

#include <gtest/gtest.h>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::In;
using testing::Make;
using testing::MakeF32;
using testing::MakeI64;
using testing::Read;
using testing::RunSingleOp;

using Bytes = std::vector<uint8_t>;

TEST(CompareKernelTest, GreaterLessEqualBroadcast) {
  const auto a = MakeF32({2, 2}, {1, 5, 3, 3});
  const auto b = MakeF32({2}, {3, 3});
  auto gt = RunSingleOp(OpType::kGreater, {}, {In(a), In(b)});
  auto lt = RunSingleOp(OpType::kLess, {}, {In(a), In(b)});
  auto eq = RunSingleOp(OpType::kEqual, {}, {In(a), In(b)});
  ASSERT_TRUE(gt.ok() && lt.ok() && eq.ok()) << gt.status().ToString();
  EXPECT_EQ((*gt)[0].dtype, DType::kBool);
  EXPECT_EQ(Read<uint8_t>((*gt)[0]), (Bytes{0, 1, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*lt)[0]), (Bytes{1, 0, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*eq)[0]), (Bytes{0, 0, 1, 1}));
}

TEST(CompareKernelTest, EqualOnIntsAndBools) {
  auto ints = RunSingleOp(OpType::kEqual, {},
                          {In(Make<int32_t>(DType::kI32, {3}, {1, -2, 3})),
                           In(Make<int32_t>(DType::kI32, {3}, {1, 2, 3}))});
  ASSERT_TRUE(ints.ok());
  EXPECT_EQ(Read<uint8_t>((*ints)[0]), (Bytes{1, 0, 1}));
  auto bools = RunSingleOp(
      OpType::kEqual, {},
      {In(Make<uint8_t>(DType::kBool, {2}, {1, 0})), In(Make<uint8_t>(DType::kBool, {2}, {1, 1}))});
  ASSERT_TRUE(bools.ok()) << bools.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*bools)[0]), (Bytes{1, 0}));
  // Greater is not defined on bool.
  EXPECT_FALSE(RunSingleOp(OpType::kGreater, {},
                           {In(Make<uint8_t>(DType::kBool, {1}, {1})),
                            In(Make<uint8_t>(DType::kBool, {1}, {0}))})
                   .ok());
}

TEST(LogicalKernelTest, AndOrNot) {
  const auto a = Make<uint8_t>(DType::kBool, {2, 2}, {0, 1, 0, 1});
  const auto b = Make<uint8_t>(DType::kBool, {2, 1}, {0, 1});
  auto and_ = RunSingleOp(OpType::kAnd, {}, {In(a), In(b)});
  auto or_ = RunSingleOp(OpType::kOr, {}, {In(a), In(b)});
  auto not_ = RunSingleOp(OpType::kNot, {}, {In(a)});
  ASSERT_TRUE(and_.ok() && or_.ok() && not_.ok()) << and_.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*and_)[0]), (Bytes{0, 0, 0, 1}));
  EXPECT_EQ(Read<uint8_t>((*or_)[0]), (Bytes{0, 1, 1, 1}));
  EXPECT_EQ(Read<uint8_t>((*not_)[0]), (Bytes{1, 0, 1, 0}));
  EXPECT_FALSE(RunSingleOp(OpType::kAnd, {}, {In(MakeF32({1}, {1})), In(MakeF32({1}, {1}))}).ok());
}

TEST(WhereKernelTest, BroadcastsConditionAndValues) {
  // cond [2,1], x [2,2], y scalar.
  auto out = RunSingleOp(OpType::kWhere, {},
                         {In(Make<uint8_t>(DType::kBool, {2, 1}, {1, 0})),
                          In(MakeI64({2, 2}, {1, 2, 3, 4})), In(MakeI64({}, {-9}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype, DType::kI64);
  EXPECT_EQ(Read<int64_t>((*out)[0]), (std::vector<int64_t>{1, 2, -9, -9}));
}

TEST(WhereKernelTest, RejectsNonBoolConditionAndMixedValues) {
  EXPECT_FALSE(RunSingleOp(OpType::kWhere, {},
                           {In(MakeF32({1}, {1})), In(MakeF32({1}, {1})), In(MakeF32({1}, {2}))})
                   .ok());
  EXPECT_FALSE(RunSingleOp(OpType::kWhere, {},
                           {In(Make<uint8_t>(DType::kBool, {1}, {1})), In(MakeF32({1}, {1})),
                            In(MakeI64({1}, {2}))})
                   .ok());
}

}  // namespace
}  // namespace kiln
