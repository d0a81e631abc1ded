// Resize/Upsample reference kernel and schemas: coordinate modes, nearest rounding, linear,
// tf_crop_and_resize extrapolation, errors.
#include "tests/nn_test_util.h"

namespace kiln::nn_test {
namespace {

Attributes ResizeAttrs(const std::string& mode, const std::string& coord,
                       const std::string& nearest = "round_prefer_floor") {
  Attributes a;
  a.Set("mode", mode);
  a.Set("coordinate_transformation_mode", coord);
  a.Set("nearest_mode", nearest);
  return a;
}

HostTensor ResizeBySizes(const Attributes& a, HostTensor x, std::vector<int64_t> sizes) {
  const int64_t rank = static_cast<int64_t>(sizes.size());
  return RunOk(OpType::kResize, a,
               {In(std::move(x)), Omitted(), Omitted(), Const(MakeI64({rank}, sizes))});
}

TEST(NnResize, NearestAsymmetricFloorByScales) {
  // ppocr_det's upsampling: every pixel becomes a 2x2 block.
  HostTensor y = RunOk(
      OpType::kResize, ResizeAttrs("nearest", "asymmetric", "floor"),
      {In(MakeF32({1, 1, 2, 2}, {1, 2, 3, 4})), Omitted(), Const(MakeF32({4}, {1, 1, 2, 2}))});
  ExpectF32(y, {1, 1, 4, 4}, {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4});
}

TEST(NnResize, NearestRoundingModesAtHalf) {
  const auto x = MakeF32({1, 2}, {10, 20});
  // asymmetric source coordinates: 0 .25 .5 .75 1 1.25 1.5 1.75
  ExpectF32(ResizeBySizes(ResizeAttrs("nearest", "asymmetric", "round_prefer_floor"), x, {1, 8}),
            {1, 8}, {10, 10, 10, 20, 20, 20, 20, 20});
  ExpectF32(ResizeBySizes(ResizeAttrs("nearest", "asymmetric", "round_prefer_ceil"), x, {1, 8}),
            {1, 8}, {10, 10, 20, 20, 20, 20, 20, 20});
  ExpectF32(ResizeBySizes(ResizeAttrs("nearest", "asymmetric", "ceil"), x, {1, 8}), {1, 8},
            {10, 20, 20, 20, 20, 20, 20, 20});
}

TEST(NnResize, LinearHalfPixelClampsAtBorders) {
  HostTensor y =
      ResizeBySizes(ResizeAttrs("linear", "half_pixel"), MakeF32({1, 2}, {0, 4}), {1, 4});
  ExpectF32(y, {1, 4}, {0, 1, 3, 4});  // sources -0.25 0.25 0.75 1.25
}

TEST(NnResize, LinearAlignCornersAndBilinear2D) {
  ExpectF32(ResizeBySizes(ResizeAttrs("linear", "align_corners"), MakeF32({1, 2}, {0, 4}), {1, 3}),
            {1, 3}, {0, 2, 4});
  // 2x2 -> 3x3 align_corners: the centre averages all four corners.
  ExpectF32(
      ResizeBySizes(ResizeAttrs("linear", "align_corners"), MakeF32({2, 2}, {0, 2, 4, 6}), {3, 3}),
      {3, 3}, {0, 1, 2, 2, 3, 4, 4, 5, 6});
}

TEST(NnResize, PytorchHalfPixelSingleOutputSamplesTheStart) {
  ExpectF32(ResizeBySizes(ResizeAttrs("linear", "pytorch_half_pixel"),
                          MakeF32({1, 4}, {3, 5, 7, 9}), {1, 1}),
            {1, 1}, {3});
}

TEST(NnResize, TfCropAndResizeExtrapolates) {
  Attributes a = ResizeAttrs("linear", "tf_crop_and_resize");
  a.Set("extrapolation_value", 7.f);
  HostTensor y = RunOk(OpType::kResize, a,
                       {In(MakeF32({1, 4}, {0, 1, 2, 3})), Const(MakeF32({4}, {0, 0, 1, 1.5f})),
                        Omitted(), Const(MakeI64({2}, {1, 4}))});
  ExpectF32(y, {1, 4}, {0, 1.5f, 3, 7});  // sources 0 1.5 3 4.5
}

TEST(NnResize, EmptyRoiAndScalesCountAsAbsent) {
  HostTensor y = RunOk(OpType::kResize, ResizeAttrs("nearest", "tf_half_pixel_for_nn"),
                       {In(MakeF32({1, 4}, {1, 2, 3, 4})), Const(MakeF32({0}, {})),
                        Const(MakeF32({0}, {})), Const(MakeI64({2}, {1, 2}))});
  ExpectF32(y, {1, 2}, {2, 4});  // sources (o + 0.5) * 2 = 1, 3
}

TEST(NnResize, NearestOnUint8) {
  HostTensor y = ResizeBySizes(ResizeAttrs("nearest", "asymmetric", "floor"),
                               Make<uint8_t>(DType::kU8, {2}, {7, 200}), {4});
  EXPECT_EQ(Values<uint8_t>(y), (std::vector<uint8_t>{7, 7, 200, 200}));
}

TEST(NnUpsample, NearestAndLinearShareResize) {
  Attributes a;
  a.Set("mode", std::string("nearest"));
  HostTensor y = RunOk(OpType::kUpsample, a,
                       {In(MakeF32({1, 1, 1, 2}, {1, 2})), Const(MakeF32({4}, {1, 1, 2, 1.5f}))});
  ExpectF32(y, {1, 1, 2, 3}, {1, 1, 2, 1, 1, 2});  // floor(o / 1.5): 0 0 1
  a.Set("mode", std::string("linear"));
  y = RunOk(OpType::kUpsample, a,
            {In(MakeF32({1, 1, 1, 2}, {0, 4})), Const(MakeF32({4}, {1, 1, 1, 2}))});
  ExpectF32(y, {1, 1, 1, 4}, {0, 2, 4, 4});  // asymmetric: 0 .5 1 1.5
}

// Expected values from ONNX's reference Resize (onnx.reference, onnx 1.23.2) on x = [1,2,4,8].
TEST(NnResize, CubicExcludeOutsideAndAntialias) {
  const auto x = MakeF32({1, 4}, {1, 2, 4, 8});
  const auto up = Const(MakeI64({2}, {1, 6}));
  ExpectF32(
      RunOk(OpType::kResize, ResizeAttrs("cubic", "half_pixel"), {In(x), Omitted(), Omitted(), up}),
      {1, 6}, {0.913195f, 1.3125f, 2.304402f, 3.383102f, 6.1875f, 8.347225f}, 1e-5f);
  Attributes exclude = ResizeAttrs("cubic", "half_pixel");
  exclude.Set("exclude_outside", int64_t{1});
  ExpectF32(RunOk(OpType::kResize, exclude, {In(x), Omitted(), Omitted(), up}), {1, 6},
            {0.898649f, 1.285714f, 2.304401f, 3.383101f, 6.342857f, 8.405406f}, 1e-5f);
  Attributes aa = ResizeAttrs("linear", "half_pixel");
  aa.Set("antialias", int64_t{1});
  ExpectF32(RunOk(OpType::kResize, aa, {In(x), Omitted(), Omitted(), Const(MakeI64({2}, {1, 3}))}),
            {1, 3}, {1.272727f, 3.0f, 6.909091f}, 1e-5f);
}

TEST(NnResize, RejectsBadInputs) {
  const auto x = MakeF32({1, 2}, {1, 2});
  const auto sizes = Const(MakeI64({2}, {1, 4}));
  Attributes nearest_aa = ResizeAttrs("nearest", "half_pixel");
  nearest_aa.Set("antialias", int64_t{1});
  EXPECT_EQ(RunStatus(OpType::kResize, nearest_aa, {In(x), Omitted(), Omitted(), sizes}).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus(OpType::kResize, ResizeAttrs("nearest", "half_pixel", "nearest_up"),
                      {In(x), Omitted(), Omitted(), sizes})
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(RunStatus(OpType::kResize, ResizeAttrs("nearest", "half_pixel"),
                      {In(x), Omitted(), Const(MakeF32({2}, {1, 2})), sizes})
                .code(),
            StatusCode::kInvalidArgument);  // both scales and sizes
  EXPECT_EQ(RunStatus(OpType::kResize, ResizeAttrs("nearest", "half_pixel"),
                      {In(x), Omitted(), In(MakeF32({2}, {1, 2}))})
                .code(),
            StatusCode::kInvalidArgument);  // scales not constant
  EXPECT_EQ(RunStatus(OpType::kResize, ResizeAttrs("nearest", "half_pixel"),
                      {In(x), Omitted(), Omitted(), Const(MakeI64({3}, {1, 1, 4}))})
                .code(),
            StatusCode::kInvalidArgument);  // sizes rank mismatch
  EXPECT_EQ(RunStatus(OpType::kResize, ResizeAttrs("linear", "tf_crop_and_resize"),
                      {In(x), Omitted(), Omitted(), sizes})
                .code(),
            StatusCode::kInvalidArgument);  // crop without roi
  EXPECT_EQ(RunStatus(OpType::kResize, ResizeAttrs("linear", "half_pixel"),
                      {In(Make<uint8_t>(DType::kU8, {2}, {1, 2})), Omitted(), Omitted(),
                       Const(MakeI64({1}, {4}))})
                .code(),
            StatusCode::kInvalidArgument);  // linear needs float data
  Attributes up;
  EXPECT_EQ(RunStatus(OpType::kUpsample, up, {In(x), Const(MakeF32({2}, {1, 0.5f}))}).code(),
            StatusCode::kInvalidArgument);  // Upsample cannot shrink
}

}  // namespace
}  // namespace kiln::nn_test
