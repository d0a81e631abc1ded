// Tests of IsNaN and IsInf (detect_positive/detect_negative) on f32 and f16.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

Attributes Detect(int64_t positive, int64_t negative) {
  Attributes a;
  a.Set("detect_positive", positive);
  a.Set("detect_negative", negative);
  return a;
}

TEST(FloatClassKernelTest, IsNaNAndIsInfOnF32) {
  // Every class: NaN (both signs), infinities, max finite, denormal, zero.
  const auto x = MakeF32({2, 4}, {kNaN, -kNaN, kInf, -kInf, std::numeric_limits<float>::max(),
                                  std::numeric_limits<float>::denorm_min(), 0.f, -1.f});
  auto nan = RunSingleOp(OpType::kIsNaN, {}, {In(x)});
  ASSERT_TRUE(nan.ok()) << nan.status().ToString();
  EXPECT_EQ((*nan)[0].dtype, DType::kBool);
  EXPECT_EQ((*nan)[0].shape, (Shape{2, 4}));
  EXPECT_EQ(Read<uint8_t>((*nan)[0]), (Bytes{1, 1, 0, 0, 0, 0, 0, 0}));
  auto inf = RunSingleOp(OpType::kIsInf, {}, {In(x)});
  auto pos = RunSingleOp(OpType::kIsInf, Detect(1, 0), {In(x)});
  auto neg = RunSingleOp(OpType::kIsInf, Detect(0, 1), {In(x)});
  auto none = RunSingleOp(OpType::kIsInf, Detect(0, 0), {In(x)});
  ASSERT_TRUE(inf.ok() && pos.ok() && neg.ok() && none.ok()) << inf.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*inf)[0]), (Bytes{0, 0, 1, 1, 0, 0, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*pos)[0]), (Bytes{0, 0, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*neg)[0]), (Bytes{0, 0, 0, 1, 0, 0, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*none)[0]), (Bytes{0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(FloatClassKernelTest, HalfKeepsNaNAndInfinity) {
  // f16 bits: NaN 0x7E00, +inf 0x7C00, -inf 0xFC00, max finite 65504 0x7BFF, 1.0.
  const auto x = Make<uint16_t>(DType::kF16, {5}, {0x7E00, 0x7C00, 0xFC00, 0x7BFF, 0x3C00});
  auto nan = RunSingleOp(OpType::kIsNaN, {}, {In(x)});
  auto inf = RunSingleOp(OpType::kIsInf, Detect(0, 1), {In(x)});
  ASSERT_TRUE(nan.ok() && inf.ok()) << nan.status().ToString();
  EXPECT_EQ(Read<uint8_t>((*nan)[0]), (Bytes{1, 0, 0, 0, 0}));
  EXPECT_EQ(Read<uint8_t>((*inf)[0]), (Bytes{0, 0, 1, 0, 0}));
}

TEST(FloatClassKernelTest, ScalarAndEmptyShapes) {
  auto scalar = RunSingleOp(OpType::kIsNaN, {}, {In(MakeF32({}, {kNaN}))});
  ASSERT_TRUE(scalar.ok()) << scalar.status().ToString();
  EXPECT_EQ((*scalar)[0].shape, Shape{});
  EXPECT_EQ(Read<uint8_t>((*scalar)[0]), (Bytes{1}));
  auto empty = RunSingleOp(OpType::kIsInf, {}, {In(MakeF32({0, 3}, {}))});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape, (Shape{0, 3}));
}

TEST(FloatClassKernelTest, RefusesIntegersAndBadFlags) {
  auto ints = RunSingleOp(OpType::kIsNaN, {}, {In(MakeI64({1}, {1}))});
  ASSERT_FALSE(ints.ok());
  EXPECT_NE(ints.status().message().find("f32 or f16"), std::string::npos)
      << ints.status().ToString();
  auto flag = RunSingleOp(OpType::kIsInf, Detect(2, 1), {In(MakeF32({1}, {kInf}))});
  ASSERT_FALSE(flag.ok());
  EXPECT_NE(flag.status().message().find("detect_positive"), std::string::npos)
      << flag.status().ToString();
}

}  // namespace
}  // namespace kiln
