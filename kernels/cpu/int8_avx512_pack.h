// The packed tail of the AVX-512 int8 epilogues, shared by the GEMM epilogue
// (int8_avx512vnni.cc) and the channel-lanes depthwise kernel (int8_dw_lanes_avx512vnni.cc):
// requantized int32 lanes go to int16 with saturation, take the output zero point with
// saturation, go to 8 bits with saturation and are clamped as bytes. Exact: each saturation is
// monotone and [qmin, qmax] lies inside the 8-bit type's range, so the clamp of the saturated
// value is the clamp of the true one. Internal linkage, like simd.h: each ISA file compiles its
// own copy with its own flags.
#pragma once

#include <cstdint>

#if defined(__AVX512BW__)
#include <immintrin.h>

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// The output zero point in int16 lanes, the clamps in byte lanes.
struct Q8PackConsts {
  __m512i zero16, qmin8, qmax8;
  bool is_signed;  // i8 output codes (else u8)
};

inline Q8PackConsts Q8Pack(int32_t out_zero, int32_t qmin, int32_t qmax, bool is_signed) {
  return {_mm512_set1_epi16(static_cast<int16_t>(out_zero)),
          _mm512_set1_epi8(static_cast<char>(qmin)), _mm512_set1_epi8(static_cast<char>(qmax)),
          is_signed};
}

// Two vectors of requantized int32 lanes (before the zero point) as int16 plus the zero
// point: per 128-bit lane k, a's lanes 4k..4k+3 then b's.
inline __m512i Q8PackWords(__m512i a, __m512i b, const Q8PackConsts& pk) {
  return _mm512_adds_epi16(_mm512_packs_epi32(a, b), pk.zero16);
}

// Two vectors of Q8PackWords as clamped bytes: per 128-bit lane k, lo's 8 words then hi's.
inline __m512i Q8PackBytes(__m512i lo, __m512i hi, const Q8PackConsts& pk) {
  if (pk.is_signed) {
    return _mm512_min_epi8(_mm512_max_epi8(_mm512_packs_epi16(lo, hi), pk.qmin8), pk.qmax8);
  }
  return _mm512_min_epu8(_mm512_max_epu8(_mm512_packus_epi16(lo, hi), pk.qmin8), pk.qmax8);
}

}  // namespace
}  // namespace kiln::cpu

#endif
