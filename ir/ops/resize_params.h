// Resize/Upsample parameters (mode, coordinate mapping, per-axis scales, output shape) shared by
// their inference and their kernels, so the compiled shape and the computed values agree.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attribute.h"
#include "ir/graph.h"
#include "ir/status.h"

namespace kiln {

enum class ResizeMode { kNearest, kLinear, kCubic };
enum class ResizeCoordMode {
  kHalfPixel,
  kPytorchHalfPixel,
  kAlignCorners,
  kAsymmetric,
  kTfHalfPixelForNn,
  kTfCropAndResize,
  kHalfPixelSymmetric,  // Resize-19
};
enum class ResizeNearestMode { kRoundPreferFloor, kRoundPreferCeil, kFloor, kCeil };

struct ResizeParams {
  ResizeMode mode = ResizeMode::kNearest;
  ResizeCoordMode coord = ResizeCoordMode::kHalfPixel;
  ResizeNearestMode nearest = ResizeNearestMode::kRoundPreferFloor;
  float extrapolation_value = 0.f;  // tf_crop_and_resize samples outside the input
  float cubic_coeff_a = -0.75f;     // cubic mode
  bool exclude_outside = false;     // taps outside the input get weight 0 (then renormalised)
  bool antialias = false;           // Resize-18: linear/cubic filters widened by 1/scale
  Shape input;
  Shape output;
  std::vector<float> scales;  // per axis: given scales, or output/input when sizes given
  // Per axis: input * scale, unfloored when scales are given (ONNX maps align_corners and
  // tf_crop_and_resize coordinates with it), the output extent when sizes are given.
  std::vector<float> resized_length;
  std::vector<float> roi_start;  // per axis, normalised; used by tf_crop_and_resize only
  std::vector<float> roi_end;
};

// Resize-11..19: attributes plus the constant values of roi, scales and sizes. An empty vector
// means "not given" (omitted input or an empty tensor); exactly one of scales/sizes must be
// given. Resize-18: `axes` (scales/sizes/roi then cover only those axes; the others keep their
// extent), keep_aspect_ratio_policy (stretch, not_larger, not_smaller: one scale for every
// listed axis, extents rounded half up); antialias=1 is Unsupported. Resize-19:
// half_pixel_symmetric. Modes nearest, linear and cubic (cubic_coeff_a, exclude_outside);
// antialias=1 with linear or cubic.
Expected<ResizeParams> ResolveResize(const Attributes& attrs, const Shape& input,
                                     const std::vector<float>& roi,
                                     const std::vector<float>& scales,
                                     const std::vector<int64_t>& sizes);

// Upsample-9 (deprecated): mode nearest/linear over `scales`, with Upsample's asymmetric
// coordinate mapping and floor rounding for nearest.
Expected<ResizeParams> ResolveUpsample(const Attributes& attrs, const Shape& input,
                                       const std::vector<float>& scales);

// Input coordinate sampled for output index `out` on `axis`; `*outside` is set when
// tf_crop_and_resize samples beyond the input (the result is then extrapolation_value).
float ResizeSourceCoordinate(const ResizeParams& p, size_t axis, int64_t out, bool* outside);

// The interpolation taps of one output index on `axis` (linear and cubic modes): input indices
// (already clamped to the edge) and their weights, as ONNX's reference Resize computes them
// (edge-padded neighbours, exclude_outside, antialias).
struct ResizeTaps {
  std::vector<int64_t> index;
  std::vector<float> weight;
};
ResizeTaps ResizeInterpolationTaps(const ResizeParams& p, size_t axis, float x);

// Input index nearest to `x` under p.nearest, clamped to [0, extent).
int64_t ResizeNearestIndex(const ResizeParams& p, float x, int64_t extent);

// Reads a constant value as floats (f32/f16) or integers (i32/i64); an absent value (nullptr)
// or an empty tensor gives an empty vector. Errors if the value is not constant.
Expected<std::vector<float>> ConstantValueFloats(const Value* v, const char* what);
Expected<std::vector<int64_t>> ConstantValueInts(const Value* v, const char* what);

}  // namespace kiln
