// Pieces shared by the AVX-512 VNNI int8 micro-kernel files (int8_gemm_avx512vnni.cc,
// int8_dw_planes_avx512vnni.cc, int8_eltwise_avx512vnni.cc): tail masks, code loads and byte
// stores, the output clamp. Internal linkage, like simd.h: no weak symbol in a per-ISA object
// (scripts/check_isa_objects.sh).
#pragma once

#include <cstdint>

#include "backends/cpu/ukernels/int8_ukernels.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

inline __mmask16 Q8Mask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// 16 codes of type t at p (masked) as int32.
inline __m512i Q8LoadCodes(const void* p, QType t, __mmask16 m) {
  const __m128i raw = _mm_maskz_loadu_epi8(m, p);
  return t == QType::kU8 ? _mm512_cvtepu8_epi32(raw) : _mm512_cvtepi8_epi32(raw);
}

// The low bytes of 16 int32 lanes (values in the output type's range: truncation keeps them).
// Narrowed in a register and stored whole where all 16 lanes are on: vpmovdb straight to
// memory under a mask is slow.
inline void Q8StoreBytes(uint8_t* y, __m512i v, __mmask16 m) {
  const __m128i b = _mm512_cvtepi32_epi8(v);
  if (m == 0xffff) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), b);
  } else {
    _mm_mask_storeu_epi8(y, m, b);
  }
}

struct Q8OutConsts {
  __m512i out_zero, qmin, qmax, lo32;
  __m512i out_zero32, qmin32, qmax32;  // the same in int32 lanes
};
inline Q8OutConsts Q8Out(int32_t out_zero, int32_t qmin, int32_t qmax) {
  return {_mm512_set1_epi64(out_zero),     _mm512_set1_epi64(qmin),     _mm512_set1_epi64(qmax),
          _mm512_set1_epi64(0xffffffffLL), _mm512_set1_epi32(out_zero), _mm512_set1_epi32(qmin),
          _mm512_set1_epi32(qmax)};
}

// + out_zero, clamped to [qmin, qmax], even and odd halves joined into 16 int32 lanes.
inline __m512i Q8ClampJoin(__m512i ev, __m512i od, const Q8OutConsts& o, bool add_zero) {
  if (add_zero) {
    ev = _mm512_add_epi64(ev, o.out_zero);
    od = _mm512_add_epi64(od, o.out_zero);
  }
  ev = _mm512_min_epi64(_mm512_max_epi64(ev, o.qmin), o.qmax);
  od = _mm512_min_epi64(_mm512_max_epi64(od, o.qmin), o.qmax);
  return _mm512_or_si512(_mm512_and_si512(ev, o.lo32), _mm512_slli_epi64(od, 32));
}

}  // namespace
}  // namespace kiln::cpu

#endif
