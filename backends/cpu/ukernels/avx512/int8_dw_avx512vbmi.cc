// AVX-512 VBMI + VNNI depthwise accumulation from 8-bit codes (QDwU8Fn): per 16 outputs and
// window row, one 64-byte load, one vpermb per four window columns gathering each output's
// byte quad, one vpdpbusd — where the int16 path (QDwAccumulateFn) widens, multiplies and adds
// once per tap. The vpermb indexes come with the parameters (PrepareQDwU8, once per layer).
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu/ukernels/int8_ukernels.h"

namespace kiln::cpu {
#if defined(__AVX512VBMI__) && defined(__AVX512VNNI__)
void QDwU8Avx512Vbmi(const QDwU8Params& p, const uint8_t* plane, const int32_t* w,
                     int32_t correction, int32_t* acc) {
  __m512i idx[kQDwU8MaxQuads];
  for (int q = 0; q < kQDwU8MaxQuads; ++q) idx[q] = _mm512_loadu_si512(p.index[q]);
  const __m512i start = _mm512_set1_epi32(-correction);
  const int64_t kh = p.kernel_h, quads = p.quads, rpv = p.rows_per_vector;
  // One vector holds 16 outputs of a row, or rows_per_vector whole rows of a narrow plane
  // (their accumulators are consecutive, so one masked store writes them all).
  for (int64_t oy = 0; oy < p.out_h; oy += rpv) {
    const int64_t rows = std::min(rpv, p.out_h - oy);
    for (int64_t ox = 0; ox < p.out_w; ox += 16) {
      const uint8_t* base = plane + oy * p.stride_h * p.row + ox * p.stride_w;
      __m512i s = start;
      for (int64_t ky = 0; ky < kh; ++ky) {
        const __m512i d = _mm512_loadu_si512(base + ky * p.row);
        s = _mm512_dpbusd_epi32(s, _mm512_permutexvar_epi8(idx[0], d),
                                _mm512_set1_epi32(w[ky * quads]));
        if (quads > 1) {
          s = _mm512_dpbusd_epi32(s, _mm512_permutexvar_epi8(idx[1], d),
                                  _mm512_set1_epi32(w[ky * quads + 1]));
        }
      }
      const int64_t n = rpv > 1 ? rows * p.out_w : std::min<int64_t>(16, p.out_w - ox);
      const __mmask16 m = n >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << n) - 1);
      _mm512_mask_storeu_epi32(acc + oy * p.out_w + ox, m, s);
    }
  }
}

#endif
}  // namespace kiln::cpu
