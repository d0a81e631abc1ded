// The integer requantization every quantized kernel uses (reference, SIMD and DSP alike): an
// int32 value times a real multiplier given as an int32 fixed-point multiplier and a right
// shift, rounded once, then offset by a zero point and clamped. docs/quantization.md states the
// arithmetic; kernels that must be bit-exact with the reference call these functions (or
// reproduce them exactly). No floating point anywhere: the compiler computes multipliers.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>

namespace kiln {

// One requantization multiplier: the real factor m = multiplier * 2^-shift, with
// multiplier in [2^30, 2^31) (or 0 for m == 0) and 1 <= shift <= 62. Stored in a node's
// requantization constant as the int32 pair (multiplier, shift).
struct Requant {
  int32_t multiplier = 0;
  int32_t shift = 1;
};

// Every function here is always inlined and calls no library template: the per-ISA kernel files
// use them, and an out-of-line copy compiled with their -m flags could be the one the linker
// keeps for every caller (scripts/check_isa_objects.sh).
#define KILN_REQUANT_INLINE [[gnu::always_inline]] inline

// v clamped to [lo, hi] (lo <= hi).
template <typename T>
KILN_REQUANT_INLINE T ClampTo(T v, T lo, T hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

// round(x * multiplier / 2^shift), ties rounded towards +infinity (one rounding, an arithmetic
// shift of the exact 64-bit product plus half), saturated to int32. |x * multiplier| < 2^62,
// so the 64-bit sum never overflows.
KILN_REQUANT_INLINE int32_t Requantize(int32_t x, Requant r) {
  const int64_t product = static_cast<int64_t>(x) * r.multiplier;
  const int64_t rounded = (product + (int64_t{1} << (r.shift - 1))) >> r.shift;
  return static_cast<int32_t>(ClampTo<int64_t>(rounded, std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max()));
}

// Requantize for a 64-bit x: the accumulators of the integer ops that read int16 activations
// (int16 x int8 products summed over a convolution window overflow int32). The same rounding
// computed on the exact 128-bit product; equal to Requantize wherever x fits int32.
KILN_REQUANT_INLINE int32_t RequantizeWide(int64_t x, Requant r) {
  const __int128 product = static_cast<__int128>(x) * r.multiplier;
  const __int128 rounded = (product + (static_cast<__int128>(1) << (r.shift - 1))) >> r.shift;
  return static_cast<int32_t>(ClampTo<__int128>(rounded, std::numeric_limits<int32_t>::min(),
                                                std::numeric_limits<int32_t>::max()));
}

// The stored 8-bit (or wider) output: zero_point + Requantize(x), clamped to [qmin, qmax]
// (the output type's range narrowed by a folded Relu/Clip). Computed in int64, so the
// addition cannot overflow.
KILN_REQUANT_INLINE int32_t RequantizeToOutput(int32_t x, Requant r, int32_t zero_point,
                                               int32_t qmin, int32_t qmax) {
  const int64_t v = static_cast<int64_t>(Requantize(x, r)) + zero_point;
  return static_cast<int32_t>(ClampTo<int64_t>(v, qmin, qmax));
}

// RequantizeToOutput for a 64-bit accumulator.
KILN_REQUANT_INLINE int32_t RequantizeWideToOutput(int64_t x, Requant r, int32_t zero_point,
                                                   int32_t qmin, int32_t qmax) {
  const int64_t v = static_cast<int64_t>(RequantizeWide(x, r)) + zero_point;
  return static_cast<int32_t>(ClampTo<int64_t>(v, qmin, qmax));
}

// a + b saturated to int32 (where a kernel adds a requantized term to an accumulator).
KILN_REQUANT_INLINE int32_t SaturatingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(ClampTo<int64_t>(static_cast<int64_t>(a) + b,
                                               std::numeric_limits<int32_t>::min(),
                                               std::numeric_limits<int32_t>::max()));
}

// a + b modulo 2^32: QAdd's sum of its two rescaled inputs. With the multipliers the quantizer
// emits |a|, |b| < 2^28 and this is the exact sum; a file may hold any valid multiplier, and the
// SIMD kernels add 32-bit lanes, so the definition wraps (defined, unlike a signed overflow).
KILN_REQUANT_INLINE int32_t WrappingAdd(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// Whether a (multiplier, shift) pair read from a model file is in the form above; kernels
// check this once at prepare so run() may rely on it.
KILN_REQUANT_INLINE bool IsValidRequant(Requant r) {
  return r.shift >= 1 && r.shift <= 62 && r.multiplier >= 0;
}

// A (multiplier, shift) pair forced into the valid form (shift clamped to 1..62, a negative
// multiplier to 0); valid pairs are unchanged. For requantization rows a kernel reads from
// memory a program filled (the DSP's scratchpad): prepare validated the constant, but a
// program may DMA other bytes into the slot, and that must not reach undefined shifts.
KILN_REQUANT_INLINE Requant ClampToValidRequant(Requant r) {
  return {r.multiplier < 0 ? 0 : r.multiplier, ClampTo(r.shift, 1, 62)};
}

// QAdd's input alignment, as TFLite's: inputs are centred and shifted left by this many bits
// before each is scaled to the common scale, so the sum keeps 20 fractional bits.
inline constexpr int kAddLeftShift = 20;
// With an int16 input the centred codes reach 2^15, so QAdd keeps 15 fractional bits instead
// (TFLite's int16 choice): |code| * 2^15 <= 2^30 still fits int32.
inline constexpr int kAddLeftShift16 = 15;
KILN_REQUANT_INLINE int QAddLeftShift(bool any_16bit_input) {
  return any_16bit_input ? kAddLeftShift16 : kAddLeftShift;
}

}  // namespace kiln

#undef KILN_REQUANT_INLINE
