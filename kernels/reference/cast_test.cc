// Tests of Cast between IR dtypes (f16 <-> f32, truncation, wrap, bool) and its attribute
// errors.
#include "kernels/reference/cast.h"

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

// Cast's `to` keeps ONNX TensorProto.DataType numbers.
constexpr int64_t kOnnxFloat = 1, kOnnxUint8 = 2, kOnnxInt8 = 3, kOnnxInt32 = 6, kOnnxBool = 9,
                  kOnnxFloat16 = 10, kOnnxDouble = 11;

Attributes To(int64_t onnx_type) {
  Attributes a;
  a.Set("to", onnx_type);
  return a;
}

TEST(CastKernelTest, FloatAndHalf) {
  auto h =
      RunSingleOp(OpType::kCast, To(kOnnxFloat16), {In(MakeF32({4}, {1.5f, -2.7f, 70000, 0.1f}))});
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  EXPECT_EQ((*h)[0].dtype, DType::kF16);
  EXPECT_EQ(Read<uint16_t>((*h)[0]), (std::vector<uint16_t>{15872, 49510, 31744, 11878}));
  auto f = RunSingleOp(OpType::kCast, To(kOnnxFloat),
                       {In(Make<uint16_t>(DType::kF16, {2}, {15872, 49536}))});
  ASSERT_TRUE(f.ok());
  EXPECT_EQ(ToF32((*f)[0]), (std::vector<float>{1.5f, -2.75f}));
}

TEST(CastKernelTest, FloatToIntTruncatesTowardZero) {
  auto i = RunSingleOp(OpType::kCast, To(kOnnxInt32), {In(MakeF32({3}, {-2.7f, 2.7f, 300}))});
  ASSERT_TRUE(i.ok());
  EXPECT_EQ(Read<int32_t>((*i)[0]), (std::vector<int32_t>{-2, 2, 300}));
  auto u = RunSingleOp(OpType::kCast, To(kOnnxUint8), {In(MakeF32({2}, {300, 7.9f}))});
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(Read<uint8_t>((*u)[0]), (std::vector<uint8_t>{44, 7}));  // 300 wraps like numpy
  auto n = RunSingleOp(OpType::kCast, To(kOnnxInt8), {In(MakeI64({2}, {200, -3}))});
  ASSERT_TRUE(n.ok());
  EXPECT_EQ(Read<int8_t>((*n)[0]), (std::vector<int8_t>{-56, -3}));
}

TEST(CastKernelTest, BoolConversions) {
  auto b = RunSingleOp(OpType::kCast, To(kOnnxBool), {In(MakeF32({3}, {0, -0.5f, 2}))});
  ASSERT_TRUE(b.ok());
  EXPECT_EQ((*b)[0].dtype, DType::kBool);
  EXPECT_EQ(Read<uint8_t>((*b)[0]), (std::vector<uint8_t>{0, 1, 1}));
  auto f =
      RunSingleOp(OpType::kCast, To(kOnnxFloat), {In(Make<uint8_t>(DType::kBool, {2}, {1, 0}))});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ(ToF32((*f)[0]), (std::vector<float>{1, 0}));
}

TEST(CastKernelTest, AttributeErrors) {
  const auto x = MakeF32({1}, {1});
  auto missing = RunSingleOp(OpType::kCast, {}, {In(x)});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("'to'"), std::string::npos);
  auto dbl = RunSingleOp(OpType::kCast, To(kOnnxDouble), {In(x)});
  ASSERT_FALSE(dbl.ok());
  EXPECT_EQ(dbl.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace kiln
