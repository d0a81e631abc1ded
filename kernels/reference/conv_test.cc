// Conv reference kernel and schema: hand-computed cases and attribute errors.
#include "tests/nn_test_util.h"

namespace kiln::nn_test {
namespace {

TEST(NnConv, ValidPadding3x3) {
  Attributes a;
  HostTensor y = RunOk(
      OpType::kConv, a,
      {In(MakeF32({1, 1, 5, 5}, Ramp(25))), In(MakeF32({1, 1, 3, 3}, std::vector<float>(9, 1.f)))});
  ExpectF32(y, {1, 1, 3, 3}, {54, 63, 72, 99, 108, 117, 144, 153, 162});
}

TEST(NnConv, DepthwiseGroupsWithBias1D) {
  Attributes a;
  a.Set("group", int64_t{2});
  HostTensor y = RunOk(OpType::kConv, a,
                       {In(MakeF32({1, 2, 4}, {1, 2, 3, 4, 10, 20, 30, 40})),
                        In(MakeF32({2, 1, 2}, {1, 1, 1, -1})), In(MakeF32({2}, {0.5f, -1.f}))});
  ExpectF32(y, {1, 2, 3}, {3.5f, 5.5f, 7.5f, -11, -11, -11});
}

TEST(NnConv, Dilations) {
  Attributes a;
  a.Set("dilations", std::vector<int64_t>{2, 2});
  HostTensor y = RunOk(
      OpType::kConv, a,
      {In(MakeF32({1, 1, 4, 4}, Ramp(16))), In(MakeF32({1, 1, 2, 2}, std::vector<float>(4, 1.f)))});
  ExpectF32(y, {1, 1, 2, 2}, {20, 24, 36, 40});
}

TEST(NnConv, SameUpperStride2PadsBothSides) {
  Attributes a;
  a.Set("auto_pad", std::string("SAME_UPPER"));
  a.Set("strides", std::vector<int64_t>{2, 2});
  HostTensor y = RunOk(OpType::kConv, a,
                       {In(MakeF32({1, 1, 5, 5}, std::vector<float>(25, 1.f))),
                        In(MakeF32({1, 1, 3, 3}, std::vector<float>(9, 1.f)))});
  ExpectF32(y, {1, 1, 3, 3}, {4, 6, 4, 6, 9, 6, 4, 6, 4});
}

TEST(NnConv, AsymmetricPadsAndMultipleChannels) {
  // Two input channels summed into one output; pads only at the top/left.
  Attributes a;
  a.Set("pads", std::vector<int64_t>{1, 1, 0, 0});
  HostTensor y = RunOk(OpType::kConv, a,
                       {In(MakeF32({1, 2, 2, 2}, {1, 2, 3, 4, 10, 20, 30, 40})),
                        In(MakeF32({1, 2, 2, 2}, {1, 0, 0, 0, 0, 0, 0, 1}))});
  // out[i][j] = x0[i-1][j-1] + x1[i][j]
  ExpectF32(y, {1, 1, 2, 2}, {10, 20, 30, 41});
}

TEST(NnConv, ThreeDimensional) {
  Attributes a;
  HostTensor y = RunOk(OpType::kConv, a,
                       {In(MakeF32({1, 1, 2, 2, 3}, Ramp(12))),
                        In(MakeF32({1, 1, 2, 2, 2}, std::vector<float>(8, 1.f)))});
  ExpectF32(y, {1, 1, 1, 1, 2}, {0 + 1 + 3 + 4 + 6 + 7 + 9 + 10, 1 + 2 + 4 + 5 + 7 + 8 + 10 + 11});
}

TEST(NnConv, HalfPrecision) {
  HostTensor x("", DType::kF16, {1, 1, 1, 3});
  HostTensor w("", DType::kF16, {1, 1, 1, 2});
  const float xv[] = {1.5f, -2.f, 4.f}, wv[] = {2.f, 0.5f};
  for (int i = 0; i < 3; ++i) x.data<uint16_t>()[i] = FloatToHalf(xv[i]);
  for (int i = 0; i < 2; ++i) w.data<uint16_t>()[i] = FloatToHalf(wv[i]);
  HostTensor y = RunOk(OpType::kConv, Attributes(), {In(x), In(w)});
  ASSERT_EQ(y.dtype, DType::kF16);
  ASSERT_EQ(y.shape, (Shape{1, 1, 1, 2}));
  EXPECT_EQ(HalfToFloat(y.data<uint16_t>()[0]), 2.f);   // 3 - 1
  EXPECT_EQ(HalfToFloat(y.data<uint16_t>()[1]), -2.f);  // -4 + 2
}

TEST(NnConv, RejectsBadAttributesAndShapes) {
  const auto x = MakeF32({1, 1, 5, 5}, Ramp(25));
  const auto w = MakeF32({1, 1, 3, 3}, Ramp(9));
  Attributes bad_kernel;
  bad_kernel.Set("kernel_shape", std::vector<int64_t>{2, 2});
  EXPECT_EQ(RunStatus(OpType::kConv, bad_kernel, {In(x), In(w)}).code(),
            StatusCode::kInvalidArgument);
  Attributes bad_pads;
  bad_pads.Set("pads", std::vector<int64_t>{1, 1});
  EXPECT_EQ(RunStatus(OpType::kConv, bad_pads, {In(x), In(w)}).code(),
            StatusCode::kInvalidArgument);
  Attributes bad_auto;
  bad_auto.Set("auto_pad", std::string("SAME"));
  EXPECT_EQ(RunStatus(OpType::kConv, bad_auto, {In(x), In(w)}).code(),
            StatusCode::kInvalidArgument);
  Attributes zero_stride;
  zero_stride.Set("strides", std::vector<int64_t>{0, 1});
  EXPECT_EQ(RunStatus(OpType::kConv, zero_stride, {In(x), In(w)}).code(),
            StatusCode::kInvalidArgument);
  Attributes group3;
  group3.Set("group", int64_t{3});
  EXPECT_EQ(RunStatus(OpType::kConv, group3, {In(x), In(w)}).code(), StatusCode::kInvalidArgument);
  // W expects 2 input channels, X has 1.
  EXPECT_EQ(
      RunStatus(OpType::kConv, Attributes(), {In(x), In(MakeF32({1, 2, 3, 3}, Ramp(18)))}).code(),
      StatusCode::kInvalidArgument);
  // Kernel larger than the input.
  EXPECT_EQ(
      RunStatus(OpType::kConv, Attributes(), {In(MakeF32({1, 1, 2, 2}, Ramp(4))), In(w)}).code(),
      StatusCode::kInvalidArgument);
  // Bias of the wrong length.
  EXPECT_EQ(RunStatus(OpType::kConv, Attributes(), {In(x), In(w), In(MakeF32({2}, {1, 2}))}).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace kiln::nn_test
