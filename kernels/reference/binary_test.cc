// Tests of Add/Sub/Mul/Div/PRelu/Pow: broadcasting, integer wrap/division, mixed Pow types.
#include "kernels/reference/binary.h"

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
using testing::ToF32;

TEST(BinaryKernelTest, AddBroadcastsBothWays) {
  // [2,1] + [3] -> [2,3]
  auto out =
      RunSingleOp(OpType::kAdd, {}, {In(MakeF32({2, 1}, {10, 20})), In(MakeF32({3}, {1, 2, 3}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 3}));
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{11, 12, 13, 21, 22, 23}));
}

TEST(BinaryKernelTest, SubMulDivFloat) {
  const auto a = MakeF32({3}, {6, -3, 1});
  const auto b = MakeF32({3}, {2, 4, -4});
  auto sub = RunSingleOp(OpType::kSub, {}, {In(a), In(b)});
  auto mul = RunSingleOp(OpType::kMul, {}, {In(a), In(b)});
  auto div = RunSingleOp(OpType::kDiv, {}, {In(a), In(b)});
  ASSERT_TRUE(sub.ok() && mul.ok() && div.ok());
  EXPECT_EQ(ToF32((*sub)[0]), (std::vector<float>{4, -7, 5}));
  EXPECT_EQ(ToF32((*mul)[0]), (std::vector<float>{12, -12, -4}));
  EXPECT_EQ(ToF32((*div)[0]), (std::vector<float>{3, -0.75f, -0.25f}));
}

TEST(BinaryKernelTest, Uint8WrapsAndDividesLikeNumpy) {
  const auto a = Make<uint8_t>(DType::kU8, {3}, {250, 3, 7});
  const auto b = Make<uint8_t>(DType::kU8, {3}, {10, 5, 2});
  auto add = RunSingleOp(OpType::kAdd, {}, {In(a), In(b)});
  auto sub = RunSingleOp(OpType::kSub, {}, {In(a), In(b)});
  auto div = RunSingleOp(OpType::kDiv, {}, {In(a), In(b)});
  ASSERT_TRUE(add.ok() && sub.ok() && div.ok());
  EXPECT_EQ(Read<uint8_t>((*add)[0]), (std::vector<uint8_t>{4, 8, 9}));
  EXPECT_EQ(Read<uint8_t>((*sub)[0]), (std::vector<uint8_t>{240, 254, 5}));
  EXPECT_EQ(Read<uint8_t>((*div)[0]), (std::vector<uint8_t>{25, 0, 3}));
}

TEST(BinaryKernelTest, IntegerDivisionTruncatesAndZeroDivisorGivesZero) {
  auto out = RunSingleOp(OpType::kDiv, {},
                         {In(Make<int32_t>(DType::kI32, {3}, {-7, 7, 5})),
                          In(Make<int32_t>(DType::kI32, {3}, {2, 0, -1}))});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(Read<int32_t>((*out)[0]), (std::vector<int32_t>{-3, 0, -5}));
}

TEST(BinaryKernelTest, PReluBroadcastsSlopeToInput) {
  auto out = RunSingleOp(
      OpType::kPRelu, {},
      {In(MakeF32({2, 3}, {-1, 2, -3, 4, -5, 6})), In(MakeF32({3}, {0.5f, 0.25f, 0.1f}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const auto v = ToF32((*out)[0]);
  const std::vector<float> want = {-0.5f, 2, -0.3f, 4, -1.25f, 6};
  for (size_t i = 0; i < v.size(); ++i) EXPECT_FLOAT_EQ(v[i], want[i]);
  // A slope that would enlarge the input is rejected.
  EXPECT_FALSE(RunSingleOp(OpType::kPRelu, {},
                           {In(MakeF32({3}, {1, 2, 3})), In(MakeF32({2, 3}, {1, 1, 1, 1, 1, 1}))})
                   .ok());
}

TEST(PowKernelTest, MixedBaseAndExponentTypes) {
  auto f_i =
      RunSingleOp(OpType::kPow, {}, {In(MakeF32({3}, {1, 2, 3})), In(MakeI64({3}, {4, 5, 6}))});
  ASSERT_TRUE(f_i.ok()) << f_i.status().ToString();
  EXPECT_EQ(ToF32((*f_i)[0]), (std::vector<float>{1, 32, 729}));
  auto i_f =
      RunSingleOp(OpType::kPow, {}, {In(MakeI64({3}, {1, 2, 3})), In(MakeF32({3}, {4, 5, 0.5f}))});
  ASSERT_TRUE(i_f.ok());
  EXPECT_EQ((*i_f)[0].dtype, DType::kI64);
  EXPECT_EQ(Read<int64_t>((*i_f)[0]), (std::vector<int64_t>{1, 32, 1}));  // 3^0.5 truncates
  auto i_i = RunSingleOp(OpType::kPow, {},
                         {In(Make<int32_t>(DType::kI32, {3}, {3, -2, 7})),
                          In(Make<int32_t>(DType::kI32, {3}, {4, 3, 0}))});
  ASSERT_TRUE(i_i.ok());
  EXPECT_EQ(Read<int32_t>((*i_i)[0]), (std::vector<int32_t>{81, -8, 1}));
  // Exact beyond double's 53-bit mantissa: 3^39.
  auto big = RunSingleOp(OpType::kPow, {}, {In(MakeI64({1}, {3})), In(MakeI64({1}, {39}))});
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(Read<int64_t>((*big)[0])[0], 4052555153018976267LL);
}

TEST(BinaryKernelTest, ShapeAndDTypeErrors) {
  auto bad_shape = RunSingleOp(OpType::kAdd, {},
                               {In(MakeF32({2, 3}, {0, 0, 0, 0, 0, 0})), In(MakeF32({2}, {0, 0}))});
  ASSERT_FALSE(bad_shape.ok());
  EXPECT_NE(bad_shape.status().message().find("broadcast"), std::string::npos);
  auto bad_dtype = RunSingleOp(OpType::kMul, {}, {In(MakeF32({1}, {1})), In(MakeI64({1}, {1}))});
  ASSERT_FALSE(bad_dtype.ok());
  EXPECT_NE(bad_dtype.status().message().find("dtype"), std::string::npos);
}

}  // namespace
}  // namespace kiln
