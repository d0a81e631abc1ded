// What the quantized reference kernels read at prepare: operands' zero points (from the
// values' QuantParams), the requantization constants (validated once, so run() may trust
// them) and the output clamp. Scales are never read: they are the compiler's business.
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/requantize.h"

namespace kiln {

// The representable range of an 8-, 16- or 32-bit integer dtype.
int32_t QuantTypeMin(DType t);
int32_t QuantTypeMax(DType t);

// The per-tensor zero point of an activation (0 when absent).
int32_t ZeroPointOf(const Value& v);
// `channels` zero points of a weight: its per-axis list, or the per-tensor one repeated.
std::vector<int32_t> ZeroPointsOf(const Value& v, int64_t channels);

// The (multiplier, shift) rows of constant input `v` ([rows, 2] i32), checked; one row is
// repeated to `rows` (per-tensor use of a per-channel op).
Expected<std::vector<Requant>> ReadRequant(const Value& v, int64_t rows);

// A QConv/QGemm weight: u8/i8, or i16 with every zero point 0 (its centred codes must fit the
// kernels' int16 weight copy).
Status CheckWeightType(const Value& w, const std::vector<int32_t>& zero_points);

// The bias of QConv/QGemm: `n` values, widened to int64. An i32 constant; with an int16 input
// (`wide`: an int16 input or int16 weights) an i64 constant too (its scale s_x * s_w is 256
// times finer than with 8-bit operands).
Expected<std::vector<int64_t>> ReadQuantBias(const Value& b, int64_t n, bool wide);

// The output clamp: attributes qmin/qmax, defaulting to `out`'s whole range.
struct QuantClamp {
  int32_t lo = 0, hi = 0;
};
QuantClamp ReadClamp(const Attributes& attrs, DType out);

// Whether `t` is a quantized activation type: u8, i8 or i16 (i16 is symmetric: zero point 0).
inline bool IsQuantCode(DType t) { return t == DType::kU8 || t == DType::kI8 || t == DType::kI16; }

// The zero point of an activation of type `t`, checked: an i16 activation must have zero point
// 0 (its centred codes must fit int16), an 8-bit one must lie in the type's range.
Expected<int32_t> CheckedZeroPoint(const Value& v);

// x's elements minus the zero point, as int16 (for the multiply-accumulate loops; i16 inputs
// have zero point 0, 8-bit ones are centred into [-255, 255]).
void CenterTo16(const void* x, DType t, int32_t zero_point, int64_t n, int16_t* out);

// Stores int32 v (already clamped to the output type's range) as element i of `out`.
inline void StoreQuantized(void* out, DType t, int64_t i, int32_t v) {
  if (t == DType::kU8) {
    static_cast<uint8_t*>(out)[i] = static_cast<uint8_t>(v);
  } else if (t == DType::kI8) {
    static_cast<int8_t*>(out)[i] = static_cast<int8_t>(v);
  } else if (t == DType::kI16) {
    static_cast<int16_t*>(out)[i] = static_cast<int16_t>(v);
  } else {
    static_cast<int32_t*>(out)[i] = v;
  }
}
// Element i of an 8- or 16-bit tensor as int32.
inline int32_t LoadQuantized(const void* x, DType t, int64_t i) {
  if (t == DType::kI16) return static_cast<const int16_t*>(x)[i];
  return t == DType::kU8 ? static_cast<const uint8_t*>(x)[i] : static_cast<const int8_t*>(x)[i];
}

}  // namespace kiln
