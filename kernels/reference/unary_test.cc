// Tests of the unary reference kernels (activations, math, Clip) through schema + session.
#include "kernels/reference/unary.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/cast_test_util.h"

namespace kiln {
namespace {

using testing::Const;
using testing::In;
using testing::Make;
using testing::MakeF32;
using testing::Omitted;
using testing::Read;
using testing::RunSingleOp;
using testing::ToF32;

const std::vector<float> kX = {-2.f, -0.5f, 0.f, 0.5f, 3.f, 100.f};

std::vector<float> RunUnary(OpType op, const Attributes& attrs = {},
                            const std::vector<float>& x = kX) {
  auto out = RunSingleOp(op, attrs, {In(MakeF32({static_cast<int64_t>(x.size())}, x))});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? ToF32((*out)[0]) : std::vector<float>{};
}

void ExpectNear(const std::vector<float>& got, const std::vector<float>& want, float tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}

TEST(UnaryKernelTest, ActivationsMatchNumpy) {
  ExpectNear(RunUnary(OpType::kRelu), {0, 0, 0, 0.5f, 3, 100}, 0);
  Attributes leaky;
  leaky.Set("alpha", 0.1f);
  ExpectNear(RunUnary(OpType::kLeakyRelu, leaky), {-0.2f, -0.05f, 0, 0.5f, 3, 100}, 1e-7f);
  ExpectNear(RunUnary(OpType::kSigmoid),
             {0.11920292f, 0.37754067f, 0.5f, 0.62245933f, 0.95257413f, 1.f}, 1e-6f);
  ExpectNear(RunUnary(OpType::kHardSwish), {-0.3333333f, -0.20833333f, 0, 0.29166666f, 3, 100},
             1e-6f);
  ExpectNear(RunUnary(OpType::kSelu),
             {-1.52016647f, -0.69175819f, 0, 0.52535051f, 3.15210295f, 105.07009888f}, 1e-5f);
  Attributes elu;
  elu.Set("alpha", 2.f);
  ExpectNear(RunUnary(OpType::kElu, elu), {-1.72932943f, -0.78693868f, 0, 0.5f, 3, 100}, 1e-6f);
  ExpectNear(RunUnary(OpType::kSoftplus),
             {0.12692801f, 0.47407698f, 0.69314718f, 0.97407698f, 3.04858735f, 100.f}, 1e-5f);
  Attributes hs;  // HardSigmoid defaults alpha 0.2, beta 0.5
  ExpectNear(RunUnary(OpType::kHardSigmoid, hs), {0.1f, 0.4f, 0.5f, 0.6f, 1.f, 1.f}, 1e-6f);
}

TEST(UnaryKernelTest, MathFunctions) {
  ExpectNear(RunUnary(OpType::kErf, {}, {-2, -0.5f, 0, 0.5f, 3}),
             {-0.99532227f, -0.52049988f, 0, 0.52049988f, 0.99997791f}, 1e-6f);
  ExpectNear(RunUnary(OpType::kFloor, {}, {-1.5f, -0.5f, 0.5f, 2.f}), {-2, -1, 0, 2}, 0);
  ExpectNear(RunUnary(OpType::kCeil, {}, {-1.5f, -0.5f, 0.5f, 2.f}), {-1, -0, 1, 2}, 0);
  ExpectNear(RunUnary(OpType::kSign, {}, {-3, 0, 2}), {-1, 0, 1}, 0);
  ExpectNear(RunUnary(OpType::kReciprocal, {}, {-4, 0.5f}), {-0.25f, 2}, 0);
  ExpectNear(RunUnary(OpType::kSqrt, {}, {0, 4, 2.25f}), {0, 2, 1.5f}, 0);
  ExpectNear(RunUnary(OpType::kNeg, {}, {-1, 2}), {1, -2}, 0);
  ExpectNear(RunUnary(OpType::kAbs, {}, {-1, 2}), {1, 2}, 0);
  const auto sig = RunUnary(OpType::kSigmoid, {}, {-1000.f, 1000.f});  // no overflow to NaN
  ExpectNear(sig, {0.f, 1.f}, 0);
}

TEST(UnaryKernelTest, HalfComputesInFloat) {
  // exp(1.5) = 4.4817 rounds to f16 4.48 (bits 17531); exp(-1) -> bits 13795.
  auto out = RunSingleOp(OpType::kExp, {}, {In(Make<uint16_t>(DType::kF16, {2}, {15872, 48128}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Read<uint16_t>((*out)[0]), (std::vector<uint16_t>{17531, 13795}));
}

TEST(UnaryKernelTest, IntegerAbsNegRelu) {
  auto abs = RunSingleOp(OpType::kAbs, {}, {In(Make<int32_t>(DType::kI32, {3}, {-5, 0, 7}))});
  ASSERT_TRUE(abs.ok());
  EXPECT_EQ(Read<int32_t>((*abs)[0]), (std::vector<int32_t>{5, 0, 7}));
  auto relu = RunSingleOp(OpType::kRelu, {}, {In(Make<int8_t>(DType::kI8, {3}, {-5, 0, 7}))});
  ASSERT_TRUE(relu.ok());
  EXPECT_EQ(Read<int8_t>((*relu)[0]), (std::vector<int8_t>{0, 0, 7}));
}

TEST(UnaryKernelTest, FloatOnlyOpsRejectIntegers) {
  auto out = RunSingleOp(OpType::kSigmoid, {}, {In(Make<int32_t>(DType::kI32, {1}, {1}))});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("f32 or f16"), std::string::npos);
}

TEST(ClipKernelTest, MinMaxInputsOptional) {
  const auto x = MakeF32({5}, {-3, -1, 0, 2, 9});
  auto both =
      RunSingleOp(OpType::kClip, {}, {In(x), In(MakeF32({}, {-1.5f})), In(MakeF32({}, {1.5f}))});
  ASSERT_TRUE(both.ok()) << both.status().ToString();
  EXPECT_EQ(ToF32((*both)[0]), (std::vector<float>{-1.5f, -1, 0, 1.5f, 1.5f}));
  auto max_only = RunSingleOp(OpType::kClip, {}, {In(x), Omitted(), Const(MakeF32({}, {1}))});
  ASSERT_TRUE(max_only.ok()) << max_only.status().ToString();
  EXPECT_EQ(ToF32((*max_only)[0]), (std::vector<float>{-3, -1, 0, 1, 1}));
  auto none = RunSingleOp(OpType::kClip, {}, {In(x)});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(ToF32((*none)[0]), (std::vector<float>{-3, -1, 0, 2, 9}));
}

TEST(ClipKernelTest, Int8DefaultsToTypeRange) {
  auto out = RunSingleOp(
      OpType::kClip, {},
      {In(Make<int8_t>(DType::kI8, {3}, {-128, 5, 127})), In(Make<int8_t>(DType::kI8, {}, {0}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Read<int8_t>((*out)[0]), (std::vector<int8_t>{0, 5, 127}));
}

TEST(ClipKernelTest, RejectsNonScalarBoundsAndDTypeMismatch) {
  const auto x = MakeF32({2}, {1, 2});
  EXPECT_FALSE(RunSingleOp(OpType::kClip, {}, {In(x), In(MakeF32({2}, {0, 0}))}).ok());
  EXPECT_FALSE(RunSingleOp(OpType::kClip, {}, {In(x), In(Make<int8_t>(DType::kI8, {}, {0}))}).ok());
}

}  // namespace
}  // namespace kiln
