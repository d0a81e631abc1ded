// What the quantized reference kernels read at prepare: operands' zero points (from the
// values' QuantParams), the requantization constants (validated once, so run() may trust
// them) and the output clamp. Scales are never read: they are the compiler's business.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "ir/quant_code.h"
#include "kernels/kernel.h"
#include "kernels/requantize.h"

namespace kiln {

// The per-tensor zero point of an activation (0 when absent).
int32_t ZeroPointOf(const Value& v);
// `channels` zero points of a weight: its per-axis list, or the per-tensor one repeated.
std::vector<int32_t> ZeroPointsOf(const Value& v, int64_t channels);

// The (multiplier, shift) rows of constant input `v` ([rows, 2] i32), checked; one row is
// repeated to `rows` (per-tensor use of a per-channel op).
Expected<std::vector<Requant>> ReadRequant(const Value& v, int64_t rows);

// The bias of QConv/QGemm, widened to int64: the schema checks it is i32 [channels], or i64
// with int16 operands (at scale s_x * s_w an int32 would not hold it).
Expected<std::vector<int64_t>> ReadQuantBias(const Value& b);

// The output clamp: attributes qmin/qmax, defaulting to `out`'s whole range.
struct QuantClamp {
  int32_t lo = 0, hi = 0;
};
QuantClamp ReadClamp(const Attributes& attrs, DType out);
// Whether the clamp lies inside `out`'s code range (what the SIMD epilogues rely on: their
// 8-bit saturations then never change a clamped value).
inline bool ClampWithinCodes(const QuantClamp& c, DType out) {
  return c.lo >= QuantCodeMin(out) && c.hi <= QuantCodeMax(out);
}

// x's elements minus the zero point, as int16 (for the multiply-accumulate loops; i16 inputs
// have zero point 0, which the schemas check, 8-bit ones are centred into [-255, 255]).
void CenterTo16(const void* x, DType t, int32_t zero_point, int64_t n, int16_t* out);

// An accumulator (int32 with 8-bit operands, int64 with int16 ones) as its output code: the
// clamped value itself for an i32 output, else zero_point + Requantize (RequantizeWide for
// int64), clamped.
template <typename Acc>
int32_t AccumulatorToOutput(Acc acc, DType out_type, Requant r, int32_t zero_point,
                            QuantClamp clamp) {
  if (out_type == DType::kI32)
    return static_cast<int32_t>(std::clamp<Acc>(acc, clamp.lo, clamp.hi));
  if constexpr (sizeof(Acc) == 8) {
    return RequantizeWideToOutput(acc, r, zero_point, clamp.lo, clamp.hi);
  } else {
    return RequantizeToOutput(acc, r, zero_point, clamp.lo, clamp.hi);
  }
}

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
