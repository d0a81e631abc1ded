// The in-register 16 x 16 float transpose of the AVX-512 kernels that keep 16 channels in the
// lanes (dwconv_lanes_avx512.cc, conv_stem_avx512.cc): rows of 16 channels become rows of 16
// pixels and back. Internal linkage, like simd.h: each ISA file compiles its own copy with its
// own flags.
#pragma once

#if defined(__AVX512F__)
#include <immintrin.h>

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// r[i] lane j -> r[j] lane i: unpacks (pairs), in-lane shuffles (quads) and two rounds of
// 128-bit lane shuffles, 64 instructions.
inline void Transpose16x16(__m512 (&r)[16]) {
  __m512 t[16], u[16];
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  // u[4i + k], 128-bit lane L: rows 4i .. 4i + 3 of column 4L + k.
#pragma GCC unroll 16
  for (int i = 0; i < 16; i += 4) {
    u[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    u[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    u[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    u[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
#pragma GCC unroll 4
  for (int k = 0; k < 4; ++k) {
    const __m512 a = _mm512_shuffle_f32x4(u[k], u[4 + k], 0x88);
    const __m512 b = _mm512_shuffle_f32x4(u[k], u[4 + k], 0xDD);
    const __m512 c = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0x88);
    const __m512 d = _mm512_shuffle_f32x4(u[8 + k], u[12 + k], 0xDD);
    r[k] = _mm512_shuffle_f32x4(a, c, 0x88);
    r[8 + k] = _mm512_shuffle_f32x4(a, c, 0xDD);
    r[4 + k] = _mm512_shuffle_f32x4(b, d, 0x88);
    r[12 + k] = _mm512_shuffle_f32x4(b, d, 0xDD);
  }
}

}  // namespace
}  // namespace kiln::cpu
#endif
