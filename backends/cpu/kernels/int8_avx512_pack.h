// The AVX-512 int8 epilogues' shared pieces, used by the GEMM epilogue (int8_gemm_avx512vnni.cc),
// the channel-lanes depthwise kernel (int8_dw_lanes_avx512vnni.cc) and the direct depthwise
// one (int8_dw_direct_avx512vnni.cc): Requantize on 16 int32 lanes (Q8RqHigh, Q8Rq64), and the
// packed tail, where requantized int32 lanes go to int16 with saturation, take the output zero
// point with saturation, go to 8 bits with saturation and are clamped as bytes. Exact: each
// saturation is monotone and [qmin, qmax] lies inside the 8-bit type's range, so the clamp of the
// saturated value is the clamp of the true one. Internal linkage, like simd.h: each ISA file
// compiles its own copy with its own flags.
#pragma once

#include <cstdint>

#include "kernels/requantize.h"

#if defined(__AVX512BW__)
#include <immintrin.h>

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// Requantize of the int32 values in the low halves of the 64-bit lanes of x (sign ignored
// above bit 31: _mm512_mul_epi32 reads the low 32 bits as signed), in 64-bit lanes: `round`
// 2^(shift - 1) and `shift` in every lane (vpsravq: one uop; by an xmm count, two). Saturated
// to int32 where `saturate`; callers leave it out where the result cannot leave int32 or a
// narrower clamp follows.
inline __m512i Q8Sat32(__m512i v) {
  return _mm512_min_epi64(_mm512_max_epi64(v, _mm512_set1_epi64(INT32_MIN)),
                          _mm512_set1_epi64(INT32_MAX));
}
inline __m512i Q8Rq64(__m512i x, __m512i mult, __m512i round, __m512i shift, bool saturate = true) {
  const __m512i v = _mm512_srav_epi64(_mm512_add_epi64(_mm512_mul_epi32(x, mult), round), shift);
  return saturate ? Q8Sat32(v) : v;
}

// Requantize when shift s >= 33 (a requantization scale below 1/4, the usual case), before
// the output zero point: with P = x M = H 2^32 + L (0 <= L < 2^32), floor((P + 2^(s-1)) / 2^s)
// == (H + 2^(s-33)) >> (s - 32) exactly (L cannot carry past a multiple of 2^(s-32)), and
// |H| <= 2^30, so everything after the two products runs on 16 int32 lanes. `mult` in every
// int32 lane (vpmuldq reads the low one of each 64-bit lane), `round32` 2^(s-33), `shift32`
// s - 32.
// The even products' high halves move down by one masked vpshufd (dwords 1, 3 to 0, 2 of
// each 128-bit lane) into the odd products, whose high halves are in place already.
inline __m512i Q8RqHigh(__m512i x, __m512i mult, __m512i round32, __m512i shift32) {
  const __m512i ev = _mm512_mul_epi32(x, mult);
  const __m512i od = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), mult);
  const __m512i hi = _mm512_mask_shuffle_epi32(od, 0x5555, ev, _MM_PERM_DDBB);
  return _mm512_srav_epi32(_mm512_add_epi32(hi, round32), shift32);
}

// One requantization (a multiplier and shift shared by all 16 lanes) in the form its shift
// takes: Q8RqHigh's where shift >= 33, else the 64-bit one.
struct Q8Requant16 {
  __m512i mult, round32, shift32, round64, shift64;
  bool high;
};
inline Q8Requant16 Q8MakeRequant16(Requant r) {
  const bool high = r.shift >= 33;
  return {_mm512_set1_epi32(r.multiplier),
          _mm512_set1_epi32(high ? int32_t{1} << (r.shift - 33) : 0),
          _mm512_set1_epi32(high ? r.shift - 32 : 0),
          _mm512_set1_epi64(int64_t{1} << (r.shift - 1)),
          _mm512_set1_epi64(r.shift),
          high};
}
// Requantize of 16 int32 lanes, saturated to int32 (before the output zero point).
inline __m512i Q8Requant16Lanes(__m512i x, const Q8Requant16& q) {
  if (q.high) return Q8RqHigh(x, q.mult, q.round32, q.shift32);
  const __m512i ev = Q8Rq64(x, q.mult, q.round64, q.shift64);
  const __m512i od = Q8Rq64(_mm512_srli_epi64(x, 32), q.mult, q.round64, q.shift64);
  return _mm512_mask_shuffle_epi32(ev, 0xaaaa, od, _MM_PERM_CDAB);
}

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

// Four vectors of requantized int32 lanes as 64 clamped codes: per 128-bit lane k, v[0]'s
// lanes 4k..4k+3, then v[1]'s, v[2]'s and v[3]'s (callers put them in order with one permute).
inline __m512i Q8PackFour(__m512i v0, __m512i v1, __m512i v2, __m512i v3, const Q8PackConsts& pk) {
  return Q8PackBytes(Q8PackWords(v0, v1, pk), Q8PackWords(v2, v3, pk), pk);
}

}  // namespace
}  // namespace kiln::cpu

#endif
