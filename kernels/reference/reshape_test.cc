// Tests of the pass-through tensor ops: Reshape, Flatten, Squeeze, Unsqueeze, Identity and
// Dropout (inference/identity modes), across dtypes and with invalid attributes.
#include <gtest/gtest.h>

#include <cstring>

#include "tests/op_runner.h"

namespace kiln {
namespace {

using testing::MakeF32;
using testing::MakeI64;
using testing::OpInput;
using testing::RunSingleOp;
using testing::ToF32;

template <typename T>
HostTensor Make(DType dtype, Shape shape, const std::vector<T>& v) {
  HostTensor t("", dtype, std::move(shape));
  std::memcpy(t.bytes.data(), v.data(), t.bytes.size());
  return t;
}

OpInput Const(HostTensor t) { return {std::move(t), true}; }

std::vector<float> Iota(int n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) v[static_cast<size_t>(i)] = static_cast<float>(i);
  return v;
}

TEST(ReshapeTest, ZeroCopiesDimAndMinusOneInfers) {
  auto out = RunSingleOp(OpType::kReshape, {},
                         {{MakeF32({2, 3, 4}, Iota(24))}, Const(MakeI64({3}, {0, -1, 2}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2, 6, 2}));
  EXPECT_EQ(ToF32((*out)[0]), Iota(24));
}

TEST(ReshapeTest, AllowZeroKeepsZeroDims) {
  Attributes a;
  a.Set("allowzero", int64_t{1});
  auto out =
      RunSingleOp(OpType::kReshape, a, {{MakeF32({0, 3, 4}, {})}, Const(MakeI64({3}, {3, 4, 0}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{3, 4, 0}));
}

TEST(ReshapeTest, WorksForI8AndBool) {
  auto out =
      RunSingleOp(OpType::kReshape, {},
                  {{Make<int8_t>(DType::kI8, {2, 2}, {-1, 2, -3, 4})}, Const(MakeI64({1}, {4}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype, DType::kI8);
  EXPECT_EQ((*out)[0].bytes, (std::vector<uint8_t>{0xff, 2, 0xfd, 4}));
  auto b =
      RunSingleOp(OpType::kReshape, {},
                  {{Make<uint8_t>(DType::kBool, {3}, {1, 0, 1})}, Const(MakeI64({2}, {3, 1}))});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ((*b)[0].bytes, (std::vector<uint8_t>{1, 0, 1}));
}

TEST(ReshapeTest, RejectsBadShapes) {
  // Element count mismatch, two -1s, a -1 with allowzero 0, and a non-constant shape.
  EXPECT_FALSE(
      RunSingleOp(OpType::kReshape, {}, {{MakeF32({2, 3}, Iota(6))}, Const(MakeI64({1}, {5}))})
          .ok());
  EXPECT_FALSE(
      RunSingleOp(OpType::kReshape, {}, {{MakeF32({2, 3}, Iota(6))}, Const(MakeI64({2}, {-1, -1}))})
          .ok());
  Attributes a;
  a.Set("allowzero", int64_t{1});
  EXPECT_FALSE(
      RunSingleOp(OpType::kReshape, a, {{MakeF32({0, 3}, {})}, Const(MakeI64({2}, {0, -1}))}).ok());
  auto st = RunSingleOp(OpType::kReshape, {}, {{MakeF32({2, 3}, Iota(6))}, {MakeI64({1}, {6})}});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("constant"), std::string::npos);
}

TEST(FlattenTest, AxisVariants) {
  for (auto [axis, expect] : std::vector<std::pair<int64_t, Shape>>{
           {0, {1, 24}}, {1, {2, 12}}, {2, {6, 4}}, {3, {24, 1}}, {-1, {6, 4}}, {-3, {1, 24}}}) {
    Attributes a;
    a.Set("axis", axis);
    auto out = RunSingleOp(OpType::kFlatten, a, {{MakeF32({2, 3, 4}, Iota(24))}});
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].shape, expect) << "axis " << axis;
    EXPECT_EQ(ToF32((*out)[0]), Iota(24));
  }
  Attributes bad;
  bad.Set("axis", int64_t{4});
  EXPECT_FALSE(RunSingleOp(OpType::kFlatten, bad, {{MakeF32({2, 3, 4}, Iota(24))}}).ok());
}

TEST(SqueezeTest, ExplicitNegativeAndDefaultAxes) {
  auto out = RunSingleOp(OpType::kSqueeze, {},
                         {{MakeF32({1, 3, 1, 2}, Iota(6))}, Const(MakeI64({1}, {-2}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{1, 3, 2}));
  auto all = RunSingleOp(OpType::kSqueeze, {}, {{MakeF32({1, 3, 1, 2}, Iota(6))}});
  ASSERT_TRUE(all.ok()) << all.status().ToString();
  EXPECT_EQ((*all)[0].shape, (Shape{3, 2}));
  EXPECT_EQ(ToF32((*all)[0]), Iota(6));
}

TEST(SqueezeTest, EmptyAxesSqueezesAllUnitDims) {
  auto out =
      RunSingleOp(OpType::kSqueeze, {}, {{MakeF32({1, 2, 1}, Iota(2))}, Const(MakeI64({0}, {}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape, (Shape{2}));
}

TEST(SqueezeTest, RejectsNonUnitAndOutOfRangeAxes) {
  EXPECT_FALSE(
      RunSingleOp(OpType::kSqueeze, {}, {{MakeF32({1, 3}, Iota(3))}, Const(MakeI64({1}, {1}))})
          .ok());
  EXPECT_FALSE(
      RunSingleOp(OpType::kSqueeze, {}, {{MakeF32({1, 3}, Iota(3))}, Const(MakeI64({1}, {2}))})
          .ok());
}

TEST(UnsqueezeTest, UnsortedAndNegativeAxes) {
  auto out = RunSingleOp(OpType::kUnsqueeze, {},
                         {{MakeF32({3, 4}, Iota(12))}, Const(MakeI64({3}, {4, 0, -3}))});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Output rank 5; axes {4, 0, 2} become 1s: [1, 3, 1, 4, 1].
  EXPECT_EQ((*out)[0].shape, (Shape{1, 3, 1, 4, 1}));
  EXPECT_EQ(ToF32((*out)[0]), Iota(12));
}

TEST(UnsqueezeTest, RejectsDuplicateAxes) {
  EXPECT_FALSE(
      RunSingleOp(OpType::kUnsqueeze, {},
                  {{MakeF32({3}, Iota(3))}, Const(MakeI64({2}, {0, -3}))})  // -3 is 0 at rank 3
          .ok());
}

TEST(IdentityTest, CopiesI64) {
  auto out = RunSingleOp(OpType::kIdentity, {}, {{MakeI64({2}, {-7, 1LL << 40})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].dtype, DType::kI64);
  EXPECT_EQ((*out)[0].data<int64_t>()[0], -7);
  EXPECT_EQ((*out)[0].data<int64_t>()[1], 1LL << 40);
}

TEST(DropoutTest, InferenceIsIdentityWithTrueMask) {
  auto out = RunSingleOp(OpType::kDropout, {},
                         {{MakeF32({2, 2}, {1, -2, 3, -4})}, {MakeF32({}, {0.7f})}}, 2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{1, -2, 3, -4}));
  EXPECT_EQ((*out)[1].dtype, DType::kBool);
  EXPECT_EQ((*out)[1].bytes, (std::vector<uint8_t>{1, 1, 1, 1}));
}

TEST(DropoutTest, TrainingWithZeroRatioIsIdentity) {
  auto out = RunSingleOp(
      OpType::kDropout, {},
      {{MakeF32({3}, {1, 2, 3})}, {MakeF32({}, {0.0f})}, {Make<uint8_t>(DType::kBool, {}, {1})}},
      2);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(ToF32((*out)[0]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ((*out)[1].bytes, (std::vector<uint8_t>{1, 1, 1}));
}

TEST(DropoutTest, TrainingWithRatioIsUnsupported) {
  // Runtime training_mode: rejected by the kernel when it runs.
  auto rt = RunSingleOp(
      OpType::kDropout, {},
      {{MakeF32({3}, {1, 2, 3})}, {MakeF32({}, {0.5f})}, {Make<uint8_t>(DType::kBool, {}, {1})}});
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.status().code(), StatusCode::kUnsupported);
  // Constant training_mode with the default ratio: rejected at inference.
  auto ct = RunSingleOp(OpType::kDropout, {},
                        {{MakeF32({3}, {1, 2, 3})},
                         {HostTensor(), false, true},
                         Const(Make<uint8_t>(DType::kBool, {}, {1}))});
  ASSERT_FALSE(ct.ok());
  EXPECT_EQ(ct.status().code(), StatusCode::kUnsupported);
}

}  // namespace
}  // namespace kiln
