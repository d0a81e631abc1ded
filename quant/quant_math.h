// The quantizer's arithmetic (compile time only): activation parameters from a range, weight and
// bias quantization, and the requantization multipliers the integer kernels consume
// (kernels/requantize.h). docs/quantization.md states every formula here.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/activation.h"
#include "ir/dtype.h"
#include "ir/quant_code.h"
#include "ir/quant_params.h"
#include "ir/status.h"
#include "kernels/requantize.h"

namespace kiln::quant {

// Activation encodings: asymmetric uint8 (scale and zero point), symmetric int8 or symmetric
// int16 (zero point 0). int16 is for the layers 8 bits cannot carry (`--act sym-i16` for all,
// `--int16 NODES` or the accuracy budget for some); its integer ops accumulate in int64.
enum class ActMode { kAsymU8, kSymI8, kSymI16 };
DType ActDType(ActMode mode);
inline bool IsSymmetric(ActMode mode) { return mode != ActMode::kAsymU8; }
// The largest code of a symmetric mode (127 or 32767).
inline double SymmetricMax(ActMode mode) { return mode == ActMode::kSymI16 ? 32767.0 : 127.0; }

// The smallest range [lo, hi] an activation is given (SNPE-style minimum range): a constant or
// dead tensor must still get a positive scale.
inline constexpr double kMinRange = 1e-4;

// Parameters for real values in [lo, hi]. The range is first widened to include 0; asym-u8:
// scale = (hi - lo) / 255, zero point = round(-lo / scale) (then 0 is exactly representable);
// sym-i8: scale = max(|lo|, |hi|) / 127, zero point 0; sym-i16 likewise with 32767.
QuantParams ChooseActivationParams(double lo, double hi, ActMode mode);

// The real multiplier m as (multiplier, shift) with multiplier in [2^30, 2^31), shift in 1..62
// and m ~= multiplier * 2^-shift (relative error <= 2^-31); m == 0 gives (0, 1). Multipliers
// too small for a shift of 62 keep shift 62 and a smaller multiplier; m >= 2^30 is an error.
Expected<Requant> QuantizeMultiplier(double m);

// Symmetric int8 weights: per output channel (axis 0, `channels` = shape[0]) or per tensor
// (channels = 1), scale = max|w| / 127 (1 for an all-zero channel), q = round(w / scale) in
// [-127, 127] (round half away from zero).
// With `bits` = 16 (the weights of --int16 nodes): scale = max|w| / 32767, codes in
// [-32767, 32767] in `values16` (and `values` empty).
struct QuantizedWeights {
  std::vector<int8_t> values;
  std::vector<int16_t> values16;
  std::vector<float> scales;  // one per channel
  int64_t code(size_t k) const { return values16.empty() ? values[k] : values16[k]; }
  DType dtype() const { return values16.empty() ? DType::kI8 : DType::kI16; }
  const void* data() const {
    return values16.empty() ? static_cast<const void*>(values.data()) : values16.data();
  }
};
// `min_scales` (one per channel, optional) raises a channel's scale where needed (so that its
// int32 bias stays in range: see MinWeightScales).
QuantizedWeights QuantizeWeightsSymmetric(const std::vector<float>& w, int64_t channels,
                                          int64_t inner_stride, int64_t outer_count,
                                          const std::vector<float>& min_scales = {}, int bits = 8);
// Convenience for axis 0 of a row-major tensor: channels = shape[0], per_channel or not.
QuantizedWeights QuantizeWeightsAxis0(const std::vector<float>& w, int64_t channels,
                                      bool per_channel, const std::vector<float>& min_scales = {},
                                      int bits = 8);

// Per channel, the smallest weight scale for which the int32 bias round(b / (s_in * s_w))
// stays within +-2^30 (a channel with tiny weights and a large bias, common after BatchNorm
// folding, would otherwise overflow it). Per-tensor: the largest of them. Only for 8-bit
// operands: with int16 ones the bias is int64.
std::vector<float> MinWeightScales(const std::vector<float>& bias, float input_scale,
                                   bool per_channel);

// Whether an activation of type `t` is 16-bit (its integer readers accumulate in int64).
inline bool Is16BitActivation(DType t) { return t == DType::kI16; }

// int32 bias = round(b[c] / (s_in * s_w[c])), saturated.
std::vector<int32_t> QuantizeBias(const std::vector<float>& b, float input_scale,
                                  const std::vector<float>& weight_scales);

// Clamp [qmin, qmax] of an output (type `t`, parameters `q`) for a folded activation: none,
// Relu, or Clip(lo, hi); other activations cannot be folded (InvalidArgument).
struct QClamp {
  int64_t qmin = 0, qmax = 0;
};
Expected<QClamp> ActivationClamp(const ActivationParams& act, const QuantParams& q, DType t);

// Dequantized value of code `code`.
inline double Dequantize(int64_t code, float scale, int64_t zero_point) {
  return static_cast<double>(scale) * static_cast<double>(code - zero_point);
}
// Nearest code for real v (round half away from zero), clamped to t's range.
int64_t QuantizeValue(double v, float scale, int64_t zero_point, DType t);

}  // namespace kiln::quant
