// Reference QuantizeLinear (round half to even, saturate) and DequantizeLinear.
#include "kernels/reference/quantize.h"

#include <cmath>
#include <limits>
#include <string>

#include "kernels/reference/cast_convert.h"

namespace kiln {
namespace {

// ONNX rounds x / scale half to even (as numpy.rint), independent of the FP environment.
double RoundHalfToEven(double v) {
  const double r = std::round(v);  // half away from zero
  if (std::fabs(v - std::trunc(v)) == 0.5) return 2.0 * std::round(v / 2.0);
  return r;
}

template <typename TIn, typename TOut>
void Quantize(const TIn* x, const float* scale, const void* zero_point, void* out, int64_t n,
              const QuantAxis& q) {
  const TOut* zp = static_cast<const TOut*>(zero_point);
  TOut* o = static_cast<TOut*>(out);
  constexpr double lo = std::numeric_limits<TOut>::min();
  constexpr double hi = std::numeric_limits<TOut>::max();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / q.inner) % q.channels;
    // Divide in float, as the ONNX reference does, so ties round identically.
    const float scaled = static_cast<float>(Elem<TIn>::Load(x[i])) / scale[c];
    double v = RoundHalfToEven(static_cast<double>(scaled));
    v += zp ? static_cast<double>(zp[c]) : 0.0;
    if (std::isnan(v)) v = 0.0;
    o[i] = static_cast<TOut>(v < lo ? lo : (v > hi ? hi : v));
  }
}

}  // namespace

Expected<QuantAxis> ResolveQuantAxis(const KernelContext& ctx) {
  QuantAxis q;
  const int64_t params = ctx.input(1).num_elements();
  if (params == 1) return q;
  const Shape& shape = ctx.input(0).shape;
  int64_t axis = ctx.attrs().GetInt("axis", 1);
  if (!NormalizeAxis(axis, static_cast<int64_t>(shape.size())) ||
      shape[static_cast<size_t>(axis)] != params) {
    return InvalidArgument(
        "per-axis scale of " + std::to_string(params) + " elements does not match axis " +
        std::to_string(ctx.attrs().GetInt("axis", 1)) + " of input shape " + ShapeToString(shape));
  }
  q.channels = params;
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) q.inner *= shape[d];
  return q;
}

template <typename TIn>
Status QuantizeKernel<TIn>::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(q_, ResolveQuantAxis(ctx));
  switch (ctx.output(0).dtype) {
    case DType::kU8:
      fn_ = Quantize<TIn, uint8_t>;
      break;
    case DType::kI8:
      fn_ = Quantize<TIn, int8_t>;
      break;
    case DType::kI16:
      fn_ = Quantize<TIn, int16_t>;
      break;
    default:
      return Unsupported("QuantizeLinear to " + std::string(DTypeName(ctx.output(0).dtype)));
  }
  return Status::Ok();
}

template <typename TIn>
Status QuantizeKernel<TIn>::Run(std::span<const TensorView> inputs,
                                std::span<const TensorView> outputs, void*) {
  const void* zp = inputs.size() > 2 ? inputs[2].data : nullptr;
  fn_(inputs[0].as<const TIn>(), inputs[1].as<const float>(), zp, outputs[0].data,
      outputs[0].num_elements(), q_);
  return Status::Ok();
}

template <typename TIn>
Status DequantizeKernel<TIn>::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(q_, ResolveQuantAxis(ctx));
  return Status::Ok();
}

template <typename TIn>
Status DequantizeKernel<TIn>::Run(std::span<const TensorView> inputs,
                                  std::span<const TensorView> outputs, void*) {
  const TIn* x = inputs[0].as<const TIn>();
  const float* scale = inputs[1].as<const float>();
  const TIn* zp = inputs.size() > 2 ? inputs[2].as<const TIn>() : nullptr;
  float* out = outputs[0].as<float>();
  const int64_t n = outputs[0].num_elements();
  for (int64_t i = 0; i < n; ++i) {
    const int64_t c = (i / q_.inner) % q_.channels;
    // Subtract in int64: i32 inputs minus an i32 zero point may overflow i32.
    const int64_t centered = static_cast<int64_t>(x[i]) - (zp ? static_cast<int64_t>(zp[c]) : 0);
    out[i] = static_cast<float>(centered) * scale[c];
  }
  return Status::Ok();
}

template class QuantizeKernel<float>;
template class QuantizeKernel<Float16>;
template class DequantizeKernel<uint8_t>;
template class DequantizeKernel<int8_t>;
template class DequantizeKernel<int16_t>;
template class DequantizeKernel<int32_t>;

}  // namespace kiln
