// AVX-512 VBMI byte map (QMapBytesFn): the 256-entry table in four zmm registers, 64 codes per
// step through two two-source byte permutes (entries 0-127 and 128-255, each indexed by the
// code's low 7 bits) and a blend on the code's top bit.
#include <immintrin.h>

#include "backends/cpu/ukernels/int8_ukernels.h"

namespace kiln::cpu {
#if defined(__AVX512VBMI__)
void QMapBytesAvx512Vbmi(const uint8_t* table, const uint8_t* x, uint8_t* y, int64_t n) {
  const __m512i t0 = _mm512_loadu_si512(table), t1 = _mm512_loadu_si512(table + 64);
  const __m512i t2 = _mm512_loadu_si512(table + 128), t3 = _mm512_loadu_si512(table + 192);
  const auto map = [&](__m512i v) {
    const __m512i lo = _mm512_permutex2var_epi8(t0, v, t1);
    const __m512i hi = _mm512_permutex2var_epi8(t2, v, t3);
    return _mm512_mask_blend_epi8(_mm512_movepi8_mask(v), lo, hi);
  };
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) _mm512_storeu_si512(y + i, map(_mm512_loadu_si512(x + i)));
  if (i < n) {
    const __mmask64 m = (__mmask64{1} << (n - i)) - 1;
    _mm512_mask_storeu_epi8(y + i, m, map(_mm512_maskz_loadu_epi8(m, x + i)));
  }
}
#endif
}  // namespace kiln::cpu
