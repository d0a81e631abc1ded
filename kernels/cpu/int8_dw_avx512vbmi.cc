// AVX-512 VBMI + VNNI depthwise accumulation from 8-bit codes (QDwU8Fn): per 16 outputs and
// window row, one 64-byte load, one vpermb per four window columns gathering each output's
// byte quad, one vpdpbusd — where the int16 path (QDwAccumulateFn) widens, multiplies and adds
// once per tap.
#include <immintrin.h>

#include "kernels/cpu/int8_ukernels.h"

namespace kiln::cpu {
#if defined(__AVX512VBMI__) && defined(__AVX512VNNI__)
namespace {

// Byte 4j + k of quad q's index: column stride_w * j + 4q + k of a 16-output block (at most
// 2 * 15 + 4 + 3 = 37: inside the 64-byte load). Built at compile time for strides 1 and 2:
// a 7x7 plane is a few dozen vpdpbusd, so building them per call cost as much as the work.
struct QuadIndex {
  alignas(64) uint8_t bytes[kQDwU8MaxQuads][64];
};
constexpr QuadIndex MakeQuadIndex(int64_t stride_w) {
  QuadIndex t{};
  for (int q = 0; q < kQDwU8MaxQuads; ++q) {
    for (int j = 0; j < 16; ++j) {
      for (int k = 0; k < 4; ++k)
        t.bytes[q][4 * j + k] = static_cast<uint8_t>(stride_w * j + 4 * q + k);
    }
  }
  return t;
}
constexpr QuadIndex kQuadIndex1 = MakeQuadIndex(1);
constexpr QuadIndex kQuadIndex2 = MakeQuadIndex(2);

}  // namespace

void QDwU8Avx512Vbmi(const QDwU8Params& p, const uint8_t* plane, const int32_t* w,
                     int32_t correction, int32_t* acc) {
  QuadIndex local;
  const QuadIndex* table = p.stride_w == 1   ? &kQuadIndex1
                           : p.stride_w == 2 ? &kQuadIndex2
                                             : nullptr;
  if (!table) {
    local = MakeQuadIndex(p.stride_w);
    table = &local;
  }
  __m512i idx[kQDwU8MaxQuads];
  for (int q = 0; q < kQDwU8MaxQuads; ++q) idx[q] = _mm512_load_si512(table->bytes[q]);
  const __m512i start = _mm512_set1_epi32(-correction);
  const int64_t kh = p.kernel_h, quads = p.quads;
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    const uint8_t* rows = plane + oy * p.stride_h * p.row;
    int32_t* arow = acc + oy * p.out_w;
    for (int64_t ox = 0; ox < p.out_w; ox += 16) {
      const uint8_t* base = rows + ox * p.stride_w;
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
      const int64_t left = p.out_w - ox;
      const __mmask16 m = left >= 16 ? __mmask16{0xffff} : static_cast<__mmask16>((1u << left) - 1);
      _mm512_mask_storeu_epi32(arow + ox, m, s);
    }
  }
}

#endif
}  // namespace kiln::cpu
