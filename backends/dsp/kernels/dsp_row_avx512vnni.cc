// The DSP's 4-channel dot product with AVX-512 VNNI (cmake/KilnIsaFlags.cmake): one vpdpbusd
// per 16 outputs (u8 quads of interleaved input channels times the tap's s8 weight quad); stride
// 2 picks the even quads of two loads. Accumulators under a mask at the row's tail.
#include <immintrin.h>

#include "backends/dsp/kernels/dsp_row.h"

namespace kiln {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)

void DspDotQ4Avx512Vnni(const uint8_t* xq, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                        int64_t rows, int64_t n, int64_t step, int32_t w4) {
  const __m512i wv = _mm512_set1_epi32(w4);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* x = xq + r * x_stride;
    int32_t* a = acc + r * acc_stride;
    for (int64_t i = 0; i < n; i += 16) {
      const int64_t left = n - i;
      const __mmask16 m = left >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << left) - 1);
      __m512i q;
      if (step == 1) {
        q = _mm512_loadu_si512(x + 4 * i);
      } else {
        const __m512i lo = _mm512_loadu_si512(x + 8 * i);
        const __m512i hi = _mm512_loadu_si512(x + 8 * i + 64);
        q = _mm512_permutex2var_epi32(lo, even, hi);
      }
      const __m512i s = _mm512_maskz_loadu_epi32(m, a + i);
      _mm512_mask_storeu_epi32(a + i, m, _mm512_dpbusd_epi32(s, q, wv));
    }
  }
}

#endif
}  // namespace kiln
