// Resize/Upsample parameter resolution and coordinate mapping (ONNX Resize-13 semantics).
#include "ir/ops/resize_params.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace kiln {
namespace {

Status ParseMode(const std::string& mode, ResizeParams& p) {
  if (mode == "nearest") {
    p.mode = ResizeMode::kNearest;
  } else if (mode == "linear" || mode == "bilinear") {
    p.mode = ResizeMode::kLinear;
  } else if (mode == "cubic") {
    p.mode = ResizeMode::kCubic;
  } else {
    return InvalidArgument("Resize mode '" + mode + "' is not one of nearest, linear, cubic");
  }
  return Status::Ok();
}

Status ParseCoordMode(const std::string& m, ResizeParams& p) {
  if (m == "half_pixel") {
    p.coord = ResizeCoordMode::kHalfPixel;
  } else if (m == "pytorch_half_pixel") {
    p.coord = ResizeCoordMode::kPytorchHalfPixel;
  } else if (m == "align_corners") {
    p.coord = ResizeCoordMode::kAlignCorners;
  } else if (m == "asymmetric") {
    p.coord = ResizeCoordMode::kAsymmetric;
  } else if (m == "tf_half_pixel_for_nn") {
    p.coord = ResizeCoordMode::kTfHalfPixelForNn;
  } else if (m == "tf_crop_and_resize") {
    p.coord = ResizeCoordMode::kTfCropAndResize;
  } else if (m == "half_pixel_symmetric") {
    p.coord = ResizeCoordMode::kHalfPixelSymmetric;
  } else {
    return InvalidArgument("coordinate_transformation_mode '" + m + "' is not supported");
  }
  return Status::Ok();
}

Status ParseNearestMode(const std::string& m, ResizeParams& p) {
  if (m == "round_prefer_floor") {
    p.nearest = ResizeNearestMode::kRoundPreferFloor;
  } else if (m == "round_prefer_ceil") {
    p.nearest = ResizeNearestMode::kRoundPreferCeil;
  } else if (m == "floor") {
    p.nearest = ResizeNearestMode::kFloor;
  } else if (m == "ceil") {
    p.nearest = ResizeNearestMode::kCeil;
  } else {
    return InvalidArgument("nearest_mode '" + m +
                           "' is not one of round_prefer_floor, "
                           "round_prefer_ceil, floor, ceil");
  }
  return Status::Ok();
}

// Output extents from per-axis scales: floor(in * scale), computed in float like ONNX Runtime.
Status OutputFromScales(ResizeParams& p, const std::vector<float>& scales) {
  const size_t rank = p.input.size();
  if (scales.size() != rank) {
    return InvalidArgument("scales has " + std::to_string(scales.size()) +
                           " entries, input rank is " + std::to_string(rank));
  }
  p.scales = scales;
  p.output.resize(rank);
  p.resized_length.resize(rank);
  for (size_t i = 0; i < rank; ++i) {
    if (!(scales[i] > 0.f) || !std::isfinite(scales[i])) {
      return InvalidArgument("scales must be positive and finite, got " +
                             std::to_string(scales[i]) + " on axis " + std::to_string(i));
    }
    p.resized_length[i] = static_cast<float>(p.input[i]) * scales[i];
    // Converting a float beyond int64 is undefined behaviour: refuse extents past kMaxDim.
    if (!(p.resized_length[i] <= static_cast<float>(kMaxDim))) {
      return InvalidArgument("scale " + std::to_string(scales[i]) + " makes axis " +
                             std::to_string(i) + " larger than 2^40");
    }
    p.output[i] = static_cast<int64_t>(p.resized_length[i]);
    if (p.output[i] <= 0 && p.input[i] > 0) {
      return InvalidArgument("scale " + std::to_string(scales[i]) + " leaves axis " +
                             std::to_string(i) + " empty");
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<ResizeParams> ResolveResize(const Attributes& attrs, const Shape& input,
                                     const std::vector<float>& roi,
                                     const std::vector<float>& scales,
                                     const std::vector<int64_t>& sizes) {
  ResizeParams p;
  p.input = input;
  const size_t rank = input.size();
  KILN_RETURN_IF_ERROR(ParseMode(attrs.GetString("mode", "nearest"), p));
  KILN_RETURN_IF_ERROR(
      ParseCoordMode(attrs.GetString("coordinate_transformation_mode", "half_pixel"), p));
  KILN_RETURN_IF_ERROR(ParseNearestMode(attrs.GetString("nearest_mode", "round_prefer_floor"), p));
  p.extrapolation_value = attrs.GetFloat("extrapolation_value", 0.f);
  p.cubic_coeff_a = attrs.GetFloat("cubic_coeff_a", -0.75f);
  p.exclude_outside = attrs.GetInt("exclude_outside", 0) != 0;
  p.antialias = attrs.GetInt("antialias", 0) != 0;
  if (p.antialias && p.mode == ResizeMode::kNearest) {
    return InvalidArgument("Resize antialias=1 applies to linear and cubic modes, not nearest");
  }
  if (scales.empty() == sizes.empty()) {
    return InvalidArgument("exactly one of scales and sizes must be given (got " +
                           std::string(scales.empty() ? "neither" : "both") + ")");
  }
  // Resize-18 axes: the listed axes take the given values, every other axis keeps its extent.
  std::vector<int64_t> axes;
  if (attrs.Has("axes")) {
    std::vector<bool> seen(rank, false);
    for (int64_t a : attrs.GetInts("axes")) {
      int64_t axis = a;
      if (!NormalizeAxis(axis, static_cast<int64_t>(rank)) || seen[static_cast<size_t>(axis)]) {
        return InvalidArgument("Resize axes " + ShapeToString(attrs.GetInts("axes")) +
                               " must be distinct axes of a rank-" + std::to_string(rank) +
                               " input");
      }
      seen[static_cast<size_t>(axis)] = true;
      axes.push_back(axis);
    }
  } else {
    for (size_t i = 0; i < rank; ++i) axes.push_back(static_cast<int64_t>(i));
  }
  const size_t given = scales.empty() ? sizes.size() : scales.size();
  if (given != axes.size()) {
    return InvalidArgument(std::string(scales.empty() ? "sizes" : "scales") + " has " +
                           std::to_string(given) + " entries, expected " +
                           std::to_string(axes.size()) +
                           (attrs.Has("axes") ? " (one per listed axis)" : " (the input rank)"));
  }
  const std::string policy = attrs.GetString("keep_aspect_ratio_policy", "stretch");
  if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
    return InvalidArgument("keep_aspect_ratio_policy '" + policy +
                           "' is not one of stretch, not_larger, not_smaller");
  }
  if (!scales.empty()) {
    std::vector<float> full(rank, 1.f);
    for (size_t i = 0; i < axes.size(); ++i) full[static_cast<size_t>(axes[i])] = scales[i];
    KILN_RETURN_IF_ERROR(OutputFromScales(p, full));
  } else {
    std::vector<int64_t> full(input.begin(), input.end());
    for (size_t i = 0; i < axes.size(); ++i) full[static_cast<size_t>(axes[i])] = sizes[i];
    p.output = full;
    p.scales.resize(rank);
    p.resized_length.resize(rank);
    for (size_t i = 0; i < rank; ++i) {
      if (full[i] <= 0 || full[i] > kMaxDim) {
        return InvalidArgument("sizes must lie in [1, 2^40], got " + ShapeToString(sizes));
      }
      if (input[i] <= 0) return InvalidArgument("cannot resize an empty input axis");
      p.scales[i] = static_cast<float>(full[i]) / static_cast<float>(input[i]);
      p.resized_length[i] = static_cast<float>(full[i]);
    }
    if (policy != "stretch") {
      // One scale for every listed axis: the smallest (not_larger) or largest (not_smaller)
      // of sizes / input; extents are that scale times the input, rounded half up.
      float scale = p.scales[static_cast<size_t>(axes[0])];
      for (int64_t a : axes) {
        const float s = p.scales[static_cast<size_t>(a)];
        scale = policy == "not_larger" ? std::min(scale, s) : std::max(scale, s);
      }
      for (int64_t a : axes) {
        const size_t i = static_cast<size_t>(a);
        const float extent = scale * static_cast<float>(input[i]);
        if (!(extent <= static_cast<float>(kMaxDim))) {
          return InvalidArgument("keep_aspect_ratio_policy makes an axis larger than 2^40");
        }
        p.scales[i] = scale;
        p.output[i] = static_cast<int64_t>(extent + 0.5f);
        p.resized_length[i] = extent;
        if (p.output[i] <= 0) return InvalidArgument("keep_aspect_ratio_policy empties an axis");
      }
    }
  }
  p.roi_start.assign(rank, 0.f);
  p.roi_end.assign(rank, 1.f);
  if (p.coord == ResizeCoordMode::kTfCropAndResize) {
    if (roi.size() != 2 * axes.size()) {
      return InvalidArgument("tf_crop_and_resize needs roi with " +
                             std::to_string(2 * axes.size()) + " entries (starts then ends), got " +
                             std::to_string(roi.size()));
    }
    for (size_t i = 0; i < axes.size(); ++i) {
      p.roi_start[static_cast<size_t>(axes[i])] = roi[i];
      p.roi_end[static_cast<size_t>(axes[i])] = roi[axes.size() + i];
    }
  }
  return p;
}

Expected<ResizeParams> ResolveUpsample(const Attributes& attrs, const Shape& input,
                                       const std::vector<float>& scales) {
  ResizeParams p;
  p.input = input;
  const std::string mode = attrs.GetString("mode", "nearest");
  if (mode != "nearest" && mode != "linear" && mode != "bilinear") {
    return InvalidArgument("Upsample mode '" + mode + "' is not one of nearest, linear");
  }
  KILN_RETURN_IF_ERROR(ParseMode(mode, p));
  p.coord = ResizeCoordMode::kAsymmetric;
  p.nearest = ResizeNearestMode::kFloor;
  for (float s : scales) {
    if (s < 1.f) return InvalidArgument("Upsample scales must be >= 1, got " + std::to_string(s));
  }
  KILN_RETURN_IF_ERROR(OutputFromScales(p, scales));
  p.roi_start.assign(input.size(), 0.f);
  p.roi_end.assign(input.size(), 1.f);
  return p;
}

float ResizeSourceCoordinate(const ResizeParams& p, size_t axis, int64_t out, bool* outside) {
  *outside = false;
  const float x = static_cast<float>(out);
  const float scale = p.scales[axis];
  const float in_len = static_cast<float>(p.input[axis]);
  const float out_len = p.resized_length[axis];
  switch (p.coord) {
    case ResizeCoordMode::kHalfPixel:
      return (x + 0.5f) / scale - 0.5f;
    case ResizeCoordMode::kPytorchHalfPixel:
      return out_len > 1 ? (x + 0.5f) / scale - 0.5f : 0.f;
    case ResizeCoordMode::kAlignCorners:
      return out_len > 1 ? x * (in_len - 1) / (out_len - 1) : 0.f;
    case ResizeCoordMode::kAsymmetric:
      return x / scale;
    case ResizeCoordMode::kTfHalfPixelForNn:
      return (x + 0.5f) / scale;
    case ResizeCoordMode::kHalfPixelSymmetric: {
      // Resize-19: half_pixel, re-centred for the rounding of the output extent.
      const float adjustment = static_cast<float>(p.output[axis]) / out_len;
      const float offset = in_len / 2 * (1 - adjustment);
      return offset + (x + 0.5f) / scale - 0.5f;
    }
    case ResizeCoordMode::kTfCropAndResize: {
      const float start = p.roi_start[axis];
      const float end = p.roi_end[axis];
      const float c = out_len > 1
                          ? start * (in_len - 1) + x * (end - start) * (in_len - 1) / (out_len - 1)
                          : 0.5f * (start + end) * (in_len - 1);
      *outside = c < 0.f || c > in_len - 1;
      return c;
    }
  }
  return x;
}

namespace {

float CubicWeight(float x, float a) {  // Keys' cubic convolution kernel
  x = std::fabs(x);
  if (x <= 1.f) return ((a + 2.f) * x - (a + 3.f)) * x * x + 1.f;
  if (x < 2.f) return ((a * x - 5.f * a) * x + 8.f * a) * x - 4.f * a;
  return 0.f;
}

}  // namespace

ResizeTaps ResizeInterpolationTaps(const ResizeParams& p, size_t axis, float x) {
  const int64_t in = p.input[axis];
  // The left neighbour is preferred: an integral x counts as ratio 1 from x - 1.
  const float fl = std::floor(x);
  const int64_t x_int = x == fl ? static_cast<int64_t>(fl) - 1 : static_cast<int64_t>(fl);
  const float ratio = x == fl ? 1.f : x - fl;
  // Antialias widens the filter when downsampling (scale < 1).
  const float scale = p.antialias ? std::min(p.scales[axis], 1.f) : 1.f;
  std::vector<float> w;
  if (p.mode == ResizeMode::kCubic) {
    if (p.antialias) {
      const int64_t start = static_cast<int64_t>(std::floor(-2.f / scale)) + 1;
      for (int64_t i = start; i < 2 - start; ++i) {
        w.push_back(CubicWeight(scale * (static_cast<float>(i) - ratio), p.cubic_coeff_a));
      }
    } else {
      for (int i = -1; i <= 2; ++i)
        w.push_back(CubicWeight(static_cast<float>(i) - ratio, p.cubic_coeff_a));
    }
  } else if (p.antialias) {
    const int64_t start = static_cast<int64_t>(std::floor(-1.f / scale)) + 1;
    for (int64_t i = start; i < 2 - start; ++i) {
      const float arg = (static_cast<float>(i) - ratio) * scale;
      w.push_back(std::clamp(1.f - std::fabs(arg), 0.f, 1.f));
    }
  } else {
    w = {1.f - ratio, ratio};
  }
  float sum = 0.f;
  for (float v : w) sum += v;
  if (p.antialias && sum != 0.f) {
    for (float& v : w) v /= sum;
  }
  const int64_t n = static_cast<int64_t>(w.size());
  // The n neighbours of x in the edge-padded input (padding ceil(n/2) on each side).
  const int64_t pad = (n + 1) / 2;
  const int64_t left = std::clamp<int64_t>(x_int - (n / 2 - 1), -pad, in + pad - n);
  ResizeTaps taps;
  float kept = 0.f;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t j = left + k;
    if (p.exclude_outside && (j < 0 || j >= in)) w[static_cast<size_t>(k)] = 0.f;
    kept += w[static_cast<size_t>(k)];
    taps.index.push_back(std::clamp<int64_t>(j, 0, in - 1));
    taps.weight.push_back(w[static_cast<size_t>(k)]);
  }
  if (p.exclude_outside && kept != 0.f) {
    for (float& v : taps.weight) v /= kept;
  }
  return taps;
}

int64_t ResizeNearestIndex(const ResizeParams& p, float x, int64_t extent) {
  float r = 0;
  switch (p.nearest) {
    case ResizeNearestMode::kRoundPreferFloor:
      r = (x - std::floor(x) == 0.5f) ? std::floor(x) : std::round(x);
      break;
    case ResizeNearestMode::kRoundPreferCeil:
      r = (x - std::floor(x) == 0.5f) ? std::ceil(x) : std::round(x);
      break;
    case ResizeNearestMode::kFloor:
      r = std::floor(x);
      break;
    case ResizeNearestMode::kCeil:
      r = std::ceil(x);
      break;
  }
  const int64_t i = static_cast<int64_t>(r);
  return i < 0 ? 0 : (i >= extent ? extent - 1 : i);
}

Expected<std::vector<float>> ConstantValueFloats(const Value* v, const char* what) {
  if (!v || v->num_elements() == 0) return std::vector<float>{};
  if (!v->constant) {
    return InvalidArgument(std::string(what) + " '" + v->name +
                           "' must be a constant: Kiln shapes are static");
  }
  const size_t n = static_cast<size_t>(v->num_elements());
  std::vector<float> out(n);
  if (v->dtype == DType::kF32) {
    std::memcpy(out.data(), v->constant->data(), n * sizeof(float));
  } else if (v->dtype == DType::kF16) {
    for (size_t i = 0; i < n; ++i) out[i] = HalfToFloat(v->constant->as<uint16_t>()[i]);
  } else {
    return InvalidArgument(std::string(what) + " must be f32 or f16, got " +
                           std::string(DTypeName(v->dtype)));
  }
  return out;
}

Expected<std::vector<int64_t>> ConstantValueInts(const Value* v, const char* what) {
  if (!v || v->num_elements() == 0) return std::vector<int64_t>{};
  if (!v->constant) {
    return InvalidArgument(std::string(what) + " '" + v->name +
                           "' must be a constant: Kiln shapes are static");
  }
  const size_t n = static_cast<size_t>(v->num_elements());
  std::vector<int64_t> out(n);
  if (v->dtype == DType::kI64) {
    std::memcpy(out.data(), v->constant->data(), n * sizeof(int64_t));
  } else if (v->dtype == DType::kI32) {
    for (size_t i = 0; i < n; ++i) out[i] = v->constant->as<int32_t>()[i];
  } else {
    return InvalidArgument(std::string(what) + " must be i32 or i64, got " +
                           std::string(DTypeName(v->dtype)));
  }
  return out;
}

}  // namespace kiln
