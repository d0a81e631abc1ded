// AVX2 int8 micro-kernels (also what AVX-512 CPUs without VNNI run). AVX2 has no exact 8-bit
// dot product (vpmaddubsw saturates its int16 pair sums), so the GEMM widens: activation bytes
// split into even/odd int16 lanes, weight bytes sign-extended likewise, vpmaddwd (exact int32
// pair sums). 8 rows x 8 columns per call. The epilogue is the portable one (AVX2 lacks the
// 64-bit arithmetic shift and min/max that Requantize needs).
#include "kernels/cpu/int8_impl.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX2__)

void QGemmUkernelAvx2(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride, int32_t* d,
                      int64_t ldd, int mr, int nr, bool accumulate) {
  __m256i c0 = _mm256_setzero_si256(), c1 = c0, c2 = c0, c3 = c0, c4 = c0, c5 = c0, c6 = c0,
          c7 = c0;
  const __m256i low_bytes = _mm256_set1_epi16(0x00ff);
  const int32_t* aw = reinterpret_cast<const int32_t*>(a);
  for (int64_t g = 0; g < k4; ++g) {
    const __m256i bv = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(b));
    b += b_stride;
    // Per column: (b0, b2) and (b1, b3) as int16 pairs (bytes are unsigned: no sign).
    const __m256i b02 = _mm256_and_si256(bv, low_bytes);
    const __m256i b13 = _mm256_srli_epi16(bv, 8);
#define KILN_Q8_ROW(r, c)                                                               \
  {                                                                                     \
    const __m256i w = _mm256_set1_epi32(aw[r]);                                         \
    const __m256i w02 = _mm256_srai_epi16(_mm256_slli_epi16(w, 8), 8);                  \
    const __m256i w13 = _mm256_srai_epi16(w, 8);                                        \
    c = _mm256_add_epi32(                                                               \
        c, _mm256_add_epi32(_mm256_madd_epi16(b02, w02), _mm256_madd_epi16(b13, w13))); \
  }
    KILN_Q8_ROW(0, c0)
    KILN_Q8_ROW(1, c1)
    KILN_Q8_ROW(2, c2)
    KILN_Q8_ROW(3, c3)
    KILN_Q8_ROW(4, c4)
    KILN_Q8_ROW(5, c5)
    KILN_Q8_ROW(6, c6)
    KILN_Q8_ROW(7, c7)
#undef KILN_Q8_ROW
    aw += kQGemmMr;
  }
  alignas(32) int32_t tile[kQGemmMr][8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[0]), c0);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[1]), c1);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[2]), c2);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[3]), c3);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[4]), c4);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[5]), c5);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[6]), c6);
  _mm256_store_si256(reinterpret_cast<__m256i*>(tile[7]), c7);
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < nr; ++j) {
      int32_t* dst = d + r * ldd + j;
      *dst = accumulate ? static_cast<int32_t>(static_cast<uint32_t>(*dst) +
                                               static_cast<uint32_t>(tile[r][j]))
                        : tile[r][j];
    }
  }
}

void QDwAccumulateAvx2(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc) {
  const int64_t taps = p.kernel_h * p.kernel_w;
  int64_t off[kQDwMaxTaps];
  if (!Q8DwTapOffsets(p, off)) {
    Q8DwPortable(p, x, w, acc, 0);
    return;
  }
  const int64_t full = p.out_w / 8 * 8;
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    int32_t* arow = acc + oy * p.out_w;
    const int16_t* xrow = x + oy * p.stride_h * p.row;
    for (int64_t ox = 0; ox < full; ox += 8) {
      __m256i s = _mm256_setzero_si256();
      for (int64_t t = 0; t < taps; ++t) {
        const int16_t* xp = xrow + off[t] + ox;
        const __m256i xv =
            _mm256_cvtepi16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(xp)));
        s = _mm256_add_epi32(s, _mm256_mullo_epi32(xv, _mm256_set1_epi32(w[t])));
      }
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(arow + ox), s);
    }
  }
  if (full < p.out_w) Q8DwPortable(p, x, w, acc, full);
}

#endif
}  // namespace kiln::cpu
