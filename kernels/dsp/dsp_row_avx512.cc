// The DSP row kernels for AVX-512 (cmake/KilnIsaFlags.cmake): 16 codes widened to int32 per
// step, the row's tail under a mask (no scalar loop: DSP rows are often 7-28 codes long).
#include <immintrin.h>

#include "kernels/dsp/dsp_row.h"

namespace kiln {
#if defined(__AVX512F__) && defined(__AVX512BW__)
namespace {

template <bool kSigned>
inline void MacRows(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                    int64_t rows, int64_t n, int32_t w, int32_t zero) {
  if (x_stride == n && acc_stride == n) {  // contiguous rows (1x1 layers): one long row
    n *= rows;
    rows = 1;
  }
  const __m512i wv = _mm512_set1_epi32(w), zv = _mm512_set1_epi32(zero);
  for (int64_t r = 0; r < rows; ++r, x += x_stride, acc += acc_stride) {
    for (int64_t i = 0; i < n; i += 16) {
      const int64_t left = n - i;
      const __mmask16 m = left >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << left) - 1);
      const __m128i b = _mm_maskz_loadu_epi8(m, x + i);
      const __m512i c = kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
      const __m512i prod = _mm512_mullo_epi32(_mm512_sub_epi32(c, zv), wv);
      const __m512i a = _mm512_maskz_loadu_epi32(m, acc + i);
      _mm512_mask_storeu_epi32(acc + i, m, _mm512_add_epi32(a, prod));
    }
  }
}

}  // namespace

void DspMacRowU8Avx512(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                       int64_t rows, int64_t n, int32_t w, int32_t zero) {
  MacRows<false>(x, x_stride, acc, acc_stride, rows, n, w, zero);
}
void DspMacRowI8Avx512(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                       int64_t rows, int64_t n, int32_t w, int32_t zero) {
  MacRows<true>(reinterpret_cast<const uint8_t*>(x), x_stride, acc, acc_stride, rows, n, w, zero);
}
#endif
}  // namespace kiln
