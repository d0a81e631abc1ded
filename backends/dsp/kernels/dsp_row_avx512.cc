// The DSP row kernels for AVX-512 (cmake/KilnIsaFlags.cmake): 16 codes widened to int32 per
// step, the row's tail under a mask (no scalar loop: DSP rows are often 7-28 codes long).
#include <immintrin.h>

#include "backends/dsp/kernels/dsp_row.h"

namespace kiln {
#if defined(__AVX512F__) && defined(__AVX512BW__)
namespace {

template <bool kSigned>
inline void MacRows(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                    int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  if (step == 1 && x_stride == n && acc_stride == n) {  // contiguous rows (1x1): one long row
    n *= rows;
    rows = 1;
  }
  const __m512i wv = _mm512_set1_epi32(w), zv = _mm512_set1_epi32(zero);
  for (int64_t r = 0; r < rows; ++r, x += x_stride, acc += acc_stride) {
    for (int64_t i = 0; i < n; i += 16) {
      const int64_t left = n - i;
      const __mmask16 m = left >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << left) - 1);
      __m512i c;
      if (step == 1) {
        const __m128i b = _mm_maskz_loadu_epi8(m, x + i);
        c = kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
      } else {
        // Stride 2: the 2 * left - 1 bytes from x + 2i as 16-bit lanes; each lane's low byte
        // is an even column (little endian), the odd byte past the row is never loaded.
        const uint64_t bytes = static_cast<uint64_t>(left >= 16 ? 32 : 2 * left - 1);
        const __mmask32 mb = static_cast<__mmask32>(bytes >= 32 ? ~0u : (1u << bytes) - 1);
        const __m512i h = _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi8(mb, x + 2 * i));
        c = kSigned ? _mm512_srai_epi32(_mm512_slli_epi32(h, 24), 24)
                    : _mm512_and_si512(h, _mm512_set1_epi32(0xff));
      }
      const __m512i prod = _mm512_mullo_epi32(_mm512_sub_epi32(c, zv), wv);
      const __m512i a = _mm512_maskz_loadu_epi32(m, acc + i);
      _mm512_mask_storeu_epi32(acc + i, m, _mm512_add_epi32(a, prod));
    }
  }
}

}  // namespace

void DspMacRowU8Avx512(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                       int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  if (step != 1 && step != 2)
    return DspMacRowU8Portable(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
  MacRows<false>(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
}
void DspMacRowI8Avx512(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                       int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  if (step != 1 && step != 2)
    return DspMacRowI8Portable(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
  MacRows<true>(reinterpret_cast<const uint8_t*>(x), x_stride, acc, acc_stride, rows, n, step, w,
                zero);
}
#endif
}  // namespace kiln
