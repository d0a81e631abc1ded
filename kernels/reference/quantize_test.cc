// Tests of QuantizeLinear/DequantizeLinear: rounding, saturation, per-axis params, errors.
#include "kernels/reference/quantize.h"

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

TEST(QuantizeKernelTest, PerTensorSaturates) {
  auto out = RunSingleOp(OpType::kQuantizeLinear, {},
                         {In(MakeF32({6}, {0, 2, 3, 1000, -254, -1000})), In(MakeF32({}, {2})),
                          In(Make<uint8_t>(DType::kU8, {}, {128}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype, DType::kU8);
  EXPECT_EQ(Read<uint8_t>((*out)[0]), (std::vector<uint8_t>{128, 129, 130, 255, 1, 0}));
}

TEST(QuantizeKernelTest, RoundsHalfToEven) {
  auto out = RunSingleOp(OpType::kQuantizeLinear, {},
                         {In(MakeF32({5}, {1, 3, 5, -1, -3})), In(MakeF32({}, {2})),
                          In(Make<int8_t>(DType::kI8, {}, {0}))});
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].dtype, DType::kI8);
  EXPECT_EQ(Read<int8_t>((*out)[0]), (std::vector<int8_t>{0, 2, 2, 0, -2}));
  // Without a zero point the output is u8 with zero point 0.
  auto no_zp =
      RunSingleOp(OpType::kQuantizeLinear, {}, {In(MakeF32({2}, {-4, 4})), In(MakeF32({}, {1}))});
  ASSERT_TRUE(no_zp.ok());
  EXPECT_EQ(Read<uint8_t>((*no_zp)[0]), (std::vector<uint8_t>{0, 4}));
}

TEST(QuantizeKernelTest, PerAxis) {
  auto out = RunSingleOp(OpType::kQuantizeLinear, {},
                         {In(MakeF32({1, 3, 2}, {2, 4, 4, 8, 8, -80})), In(MakeF32({3}, {1, 2, 4})),
                          In(Make<uint8_t>(DType::kU8, {3}, {0, 10, 20}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*out)[0]), (std::vector<uint8_t>{2, 4, 12, 14, 22, 0}));
}

TEST(DequantizeKernelTest, PerTensorAndPerAxis) {
  auto t = RunSingleOp(OpType::kDequantizeLinear, {},
                       {In(Make<uint8_t>(DType::kU8, {4}, {0, 3, 128, 255})), In(MakeF32({}, {2})),
                        In(Make<uint8_t>(DType::kU8, {}, {128}))});
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(ToF32((*t)[0]), (std::vector<float>{-256, -250, 0, 254}));
  Attributes axis0;
  axis0.Set("axis", int64_t{0});
  auto a = RunSingleOp(OpType::kDequantizeLinear, axis0,
                       {In(Make<int8_t>(DType::kI8, {2, 2}, {-128, 127, 1, -1})),
                        In(MakeF32({2}, {0.5f, 4})), In(Make<int8_t>(DType::kI8, {2}, {0, 1}))});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_EQ(ToF32((*a)[0]), (std::vector<float>{-64, 63.5f, 0, -8}));
}

TEST(QuantizeKernelTest, MismatchedParamsAreErrors) {
  // 3 scales along axis 1 of size 2.
  auto bad = RunSingleOp(OpType::kQuantizeLinear, {},
                         {In(MakeF32({1, 2}, {1, 2})), In(MakeF32({3}, {1, 1, 1}))});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("per-axis"), std::string::npos);
  auto zp = RunSingleOp(
      OpType::kQuantizeLinear, {},
      {In(MakeF32({2}, {1, 2})), In(MakeF32({}, {1})), In(Make<int32_t>(DType::kI32, {}, {0}))});
  EXPECT_FALSE(zp.ok());
}

}  // namespace
}  // namespace kiln
