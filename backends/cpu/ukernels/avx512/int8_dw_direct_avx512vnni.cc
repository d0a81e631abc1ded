// AVX-512 VNNI depthwise convolution straight from 8-bit planes (QDwDirectFn): per window row
// and 16 outputs one masked unaligned load and one vpdpbusd, the epilogue on the registers,
// 64 output bytes per store. Against the channel-lanes kernel it needs no transposes and
// takes a whole window row (3 taps) per instruction instead of two taps.
#include <algorithm>

#include "backends/cpu/kernels/int8_avx512_pack.h"
#include "backends/cpu/ukernels/int8_ukernels.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
namespace {

// One channel's epilogue constants (QRowParams' 8-bit epilogue without residual or weight
// zero point; the offset is in the sums' start already).
struct DirectEpilogue {
  Q8Requant16 requant;
  Q8PackConsts pack;
};

inline DirectEpilogue MakeEpilogue(const QDwDirectParams& p, const QRowParams& row) {
  return {Q8MakeRequant16(row.requant), Q8Pack(p.out_zero, p.qmin, p.qmax, p.out_signed)};
}

// The four accumulators' 64 output codes, in Q8PackFour's order.
inline __m512i PackFour(const __m512i (&acc)[4], const DirectEpilogue& e) {
  return Q8PackFour(Q8Requant16Lanes(acc[0], e.requant), Q8Requant16Lanes(acc[1], e.requant),
                    Q8Requant16Lanes(acc[2], e.requant), Q8Requant16Lanes(acc[3], e.requant),
                    e.pack);
}

inline __mmask64 BytesMask(int64_t n) { return n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1; }

// 64 bytes at p under mask m, the others `fill` (the zero code, flipped for i8 codes); i8
// codes flipped into the unsigned domain.
template <bool kFlip>
inline __m512i LoadCodes(const uint8_t* p, __mmask64 m, __m512i fill) {
  const __m512i v = _mm512_mask_loadu_epi8(fill, m, p);
  return kFlip ? _mm512_xor_si512(v, _mm512_set1_epi8(static_cast<char>(0x80))) : v;
}

// Stride 1: the flat plane, 64 outputs per step, output 64 s + 4 j + r in lane j of acc[r].
// kKh: the window's rows where known at compile time (3: the loop unrolled, no accumulator
// copies around the loop-carried vpdpbusd), else 0 (p.kernel_h).
template <bool kFlip, int kKh>
void DirectFlat(const QDwDirectParams& p, const uint8_t* x, const int32_t* quads, int32_t start,
                const DirectEpilogue& e, uint8_t* y) {
  const int64_t plane = p.out_h * p.out_w, kh = kKh > 0 ? kKh : p.kernel_h;
  const __m512i fill = _mm512_set1_epi8(static_cast<char>(p.zero_code ^ (kFlip ? 0x80 : 0)));
  // PackFour's lane L byte 4 r + i is output 16 L + 4 i + r: a 4x4 byte transpose per lane.
  const __m512i order =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
  const __m512i s0 = _mm512_set1_epi32(start);
  const uint8_t* base = x - p.pad_top * p.in_w - p.pad_left;
  const uint64_t* m = p.masks;
  for (int64_t q0 = 0; q0 < plane; q0 += 64, m += 4 * kh) {
    __m512i acc[4] = {s0, s0, s0, s0};
#pragma GCC unroll 4
    for (int64_t ky = 0; ky < kh; ++ky) {
      const __m512i w = _mm512_set1_epi32(quads[ky]);
      const uint8_t* src = base + q0 + ky * p.in_w;
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        acc[r] = _mm512_dpbusd_epi32(acc[r], LoadCodes<kFlip>(src + r, m[4 * ky + r], fill), w);
      }
    }
    const __m512i out = _mm512_shuffle_epi8(PackFour(acc, e), order);
    if (plane - q0 >= 64) {
      _mm512_storeu_si512(y + q0, out);
    } else {
      _mm512_mask_storeu_epi8(y + q0, BytesMask(plane - q0), out);
    }
  }
}

// Stride 2, one output row's 32 columns from column block cb: a / b take the even / odd
// outputs (lane j: output 2 j or 2 j + 1).
template <bool kFlip, int kKh>
__attribute__((always_inline)) inline void Stride2Columns(const QDwDirectParams& p,
                                                          const uint8_t* x, const int32_t* quads,
                                                          int64_t oy, int64_t cb, __m512i fill,
                                                          __m512i& a, __m512i& b) {
  const __mmask64 m0 = p.masks[cb * 2], m1 = p.masks[cb * 2 + 1];
  const __m512i zero_codes = _mm512_set1_epi8(static_cast<char>(p.zero_code));
  const int64_t kh = kKh > 0 ? kKh : p.kernel_h;
#pragma GCC unroll 4
  for (int64_t ky = 0; ky < kh; ++ky) {
    const __m512i w = _mm512_set1_epi32(quads[ky]);
    const int64_t iy = oy * p.stride_h + ky - p.pad_top;
    if (iy < 0 || iy >= p.in_h) {  // a padding row: the zero code throughout
      a = _mm512_dpbusd_epi32(a, zero_codes, w);
      b = _mm512_dpbusd_epi32(b, zero_codes, w);
      continue;
    }
    const uint8_t* src = x + iy * p.in_w + cb * 64 - p.pad_left;
    a = _mm512_dpbusd_epi32(a, LoadCodes<kFlip>(src, m0, fill), w);
    b = _mm512_dpbusd_epi32(b, LoadCodes<kFlip>(src + 2, m1, fill), w);
  }
}

// Stride 2: acc[0..1] one output row's 32 columns, acc[2..3] the next 32 columns, or the next
// row's first 32 where out_w <= 32. kKh as DirectFlat's.
template <bool kFlip, int kKh>
void DirectStride2(const QDwDirectParams& p, const uint8_t* x, const int32_t* quads, int32_t start,
                   const DirectEpilogue& e, uint8_t* y) {
  const int64_t blocks = (p.out_w + 31) / 32;
  const bool row_pairs = blocks == 1;
  const __m512i fill = _mm512_set1_epi8(static_cast<char>(p.zero_code ^ (kFlip ? 0x80 : 0)));
  // PackFour's lane L: a's outputs 8 L + 2 i (bytes i), b's 8 L + 2 i + 1 (4 + i), c's and d's
  // the same 32 columns on: even and odd interleaved per lane, then the lanes' 8-byte halves
  // ordered (0, 2, 4, 6 | 1, 3, 5, 7) so that bytes 0-31 are a/b's columns, 32-63 c/d's.
  const __m512i order =
      _mm512_broadcast_i32x4(_mm_setr_epi8(0, 4, 1, 5, 2, 6, 3, 7, 8, 12, 9, 13, 10, 14, 11, 15));
  const __m512i halves = _mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7);
  const __m512i s0 = _mm512_set1_epi32(start);
  const __mmask32 row_mask = static_cast<__mmask32>(BytesMask(p.out_w));
  for (int64_t oy = 0; oy < p.out_h; oy += row_pairs ? 2 : 1) {
    for (int64_t cb = 0; cb < blocks; cb += 2) {
      __m512i acc[4] = {s0, s0, s0, s0};
      Stride2Columns<kFlip, kKh>(p, x, quads, oy, cb, fill, acc[0], acc[1]);
      if (row_pairs) {
        if (oy + 1 < p.out_h)
          Stride2Columns<kFlip, kKh>(p, x, quads, oy + 1, cb, fill, acc[2], acc[3]);
      } else if (cb + 1 < blocks) {
        Stride2Columns<kFlip, kKh>(p, x, quads, oy, cb + 1, fill, acc[2], acc[3]);
      }
      const __m512i out =
          _mm512_permutexvar_epi64(halves, _mm512_shuffle_epi8(PackFour(acc, e), order));
      if (row_pairs) {
        _mm256_mask_storeu_epi8(y + oy * p.out_w, row_mask, _mm512_castsi512_si256(out));
        if (oy + 1 < p.out_h) {
          _mm256_mask_storeu_epi8(y + (oy + 1) * p.out_w, row_mask,
                                  _mm512_extracti64x4_epi64(out, 1));
        }
      } else {
        const int64_t ox0 = cb * 32;
        _mm512_mask_storeu_epi8(y + oy * p.out_w + ox0, BytesMask(p.out_w - ox0), out);
      }
    }
  }
}

template <bool kFlip>
void DirectChannels(const QDwDirectParams& p, const uint8_t* x, int64_t in_plane, int nc,
                    const int32_t* quads, const int32_t* start, const QRowParams* rows, uint8_t* y,
                    int64_t out_plane) {
  for (int c = 0; c < nc; ++c) {
    const DirectEpilogue e = MakeEpilogue(p, rows[c]);
    const uint8_t* xc = x + c * in_plane;
    const int32_t* qc = quads + c * p.kernel_h;
    uint8_t* yc = y + c * out_plane;
    if (p.stride_w == 1 && p.kernel_h == 3) {
      DirectFlat<kFlip, 3>(p, xc, qc, start[c], e, yc);
    } else if (p.stride_w == 1) {
      DirectFlat<kFlip, 0>(p, xc, qc, start[c], e, yc);
    } else if (p.kernel_h == 3) {
      DirectStride2<kFlip, 3>(p, xc, qc, start[c], e, yc);
    } else {
      DirectStride2<kFlip, 0>(p, xc, qc, start[c], e, yc);
    }
  }
}

}  // namespace

void QDwDirectAvx512Vnni(const QDwDirectParams& p, const uint8_t* x, int64_t in_plane, int nc,
                         const int32_t* quads, const int32_t* start, const QRowParams* rows,
                         uint8_t* y, int64_t out_plane) {
  if (p.x_signed) {
    DirectChannels<true>(p, x, in_plane, nc, quads, start, rows, y, out_plane);
  } else {
    DirectChannels<false>(p, x, in_plane, nc, quads, start, rows, y, out_plane);
  }
}

#endif
}  // namespace kiln::cpu
