// AVX-512 VNNI int8 depthwise micro-kernels of the int16 phase-plane path: the accumulation on
// vpdpwssd (taps in pairs, 32 int16 lanes per step) and the centring of codes into the planes.
#include <algorithm>

#include "backends/cpu/ukernels/avx512/int8_shared_avx512vnni.h"
#include "backends/cpu/ukernels/int8_impl.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
namespace {  // internal linkage: no weak template symbol another ISA's object could supply

// 32 int16 lanes of R output rows (32 / R lanes each, R = 1, 2 or 4) of one tap: rows[i] is
// row i's first input of the tap's window position, lanes [i * 32 / R, (i + 1) * 32 / R).
template <int R>
inline __m512i Q8DwLoad(const int16_t* const (&rows)[R], int64_t off) {
  if constexpr (R == 1) {
    return _mm512_loadu_si512(rows[0] + off);
  } else if constexpr (R == 2) {
    const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[0] + off));
    const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[1] + off));
    return _mm512_inserti64x4(_mm512_zextsi256_si512(a), b, 1);
  } else {
    auto row = [&](int i) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[i] + off));
    };
    __m512i v = _mm512_zextsi128_si512(row(0));
    v = _mm512_inserti32x4(v, row(1), 1);
    v = _mm512_inserti32x4(v, row(2), 2);
    return _mm512_inserti32x4(v, row(3), 3);
  }
}

// The centred sums of 32 int16 lanes (Q8DwLoad's) over every tap: taps in pairs, one
// vpdpwssd per 16 lanes and pair (the two taps' inputs interleaved as int16 pairs, the weight
// pair broadcast), exact in int32 like the reference's sum. Two accumulator sets take alternate
// pairs so the dependency chains overlap. out[0] holds lanes 0-15, out[1] lanes 16-31.
template <int R>
inline void Q8DwUnit(const int16_t* const (&rows)[R], const int64_t* off, int64_t taps,
                     const int32_t* wpairs, __m512i (&out)[2]) {
  const __m512i zero = _mm512_setzero_si512();
  __m512i lo0 = zero, hi0 = zero, lo1 = zero, hi1 = zero;
  // Two pairs per step, each into its own accumulators (named, not indexed: GCC keeps an
  // array indexed by a loop variable in memory).
  int64_t t = 0;
  for (; t + 3 < taps; t += 4) {
    const __m512i a = Q8DwLoad<R>(rows, off[t]), b = Q8DwLoad<R>(rows, off[t + 1]);
    const __m512i c = Q8DwLoad<R>(rows, off[t + 2]), d = Q8DwLoad<R>(rows, off[t + 3]);
    const __m512i w0 = _mm512_set1_epi32(wpairs[t / 2]);
    const __m512i w1 = _mm512_set1_epi32(wpairs[t / 2 + 1]);
    lo0 = _mm512_dpwssd_epi32(lo0, _mm512_unpacklo_epi16(a, b), w0);
    hi0 = _mm512_dpwssd_epi32(hi0, _mm512_unpackhi_epi16(a, b), w0);
    lo1 = _mm512_dpwssd_epi32(lo1, _mm512_unpacklo_epi16(c, d), w1);
    hi1 = _mm512_dpwssd_epi32(hi1, _mm512_unpackhi_epi16(c, d), w1);
  }
  if (t + 1 < taps) {
    const __m512i a = Q8DwLoad<R>(rows, off[t]), b = Q8DwLoad<R>(rows, off[t + 1]);
    const __m512i w = _mm512_set1_epi32(wpairs[t / 2]);
    lo1 = _mm512_dpwssd_epi32(lo1, _mm512_unpacklo_epi16(a, b), w);
    hi1 = _mm512_dpwssd_epi32(hi1, _mm512_unpackhi_epi16(a, b), w);
    t += 2;
  }
  if (t < taps) {  // the odd tap: its pair's second weight is 0
    const __m512i a = Q8DwLoad<R>(rows, off[t]);
    const __m512i w = _mm512_set1_epi32(wpairs[t / 2]);
    lo0 = _mm512_dpwssd_epi32(lo0, _mm512_unpacklo_epi16(a, a), w);
    hi0 = _mm512_dpwssd_epi32(hi0, _mm512_unpackhi_epi16(a, a), w);
  }
  const __m512i l = _mm512_add_epi32(lo0, lo1), h = _mm512_add_epi32(hi0, hi1);
  // unpacklo/hi work per 128-bit lane: l holds lanes {0-3, 8-11, 16-19, 24-27}, h the others.
  const __m512i i0 = _mm512_setr_epi32(0, 1, 2, 3, 16, 17, 18, 19, 4, 5, 6, 7, 20, 21, 22, 23);
  const __m512i i1 =
      _mm512_setr_epi32(8, 9, 10, 11, 24, 25, 26, 27, 12, 13, 14, 15, 28, 29, 30, 31);
  out[0] = _mm512_permutex2var_epi32(l, i0, h);
  out[1] = _mm512_permutex2var_epi32(l, i1, h);
}

// Planes up to 16 (R = 2) or 8 (R = 4) columns wide: R output rows per 32 lanes, so a 7x7
// plane keeps 28 of 32 lanes busy instead of 7 of 16. Rows past out_h reread the last one.
template <int R>
void Q8DwRows(const QDwParams& p, const int16_t* x, const int64_t* off, int64_t taps,
              const int32_t* wpairs, int32_t* acc) {
  constexpr int L = 32 / R;  // lanes per row
  static_assert(R == 2 || R == 4);
  const __mmask16 m = Q8Mask(p.out_w);
  for (int64_t oy = 0; oy < p.out_h; oy += R) {
    const int16_t* rows[R];
    for (int i = 0; i < R; ++i) {
      rows[i] = x + std::min(oy + i, p.out_h - 1) * p.stride_h * p.row;
    }
    __m512i out[2];
    Q8DwUnit<R>(rows, off, taps, wpairs, out);
    for (int i = 0; i < R && oy + i < p.out_h; ++i) {
      // Row i's lanes start at lane i * L: vector i * L / 16, shifted down by (i * L) % 16,
      // which is 0 or (R = 4, odd rows) 8.
      __m512i v = out[i * L / 16];
      if ((i * L) % 16) v = _mm512_alignr_epi32(_mm512_setzero_si512(), v, 8);
      _mm512_mask_storeu_epi32(acc + (oy + i) * p.out_w, m, v);
    }
  }
}

}  // namespace

void QDwAccumulateAvx512Vnni(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc) {
  const int64_t taps = p.kernel_h * p.kernel_w;
  int64_t off[kQDwMaxTaps];
  if (!Q8DwTapOffsets(p, off)) {
    Q8DwPortable(p, x, w, acc, 0);
    return;
  }
  // Weight pairs (t, t + 1) as the two int16 halves of an int32; centred weights fit int16
  // (codes minus a zero point of the same type).
  int32_t wpairs[(kQDwMaxTaps + 1) / 2];
  for (int64_t t = 0; t < taps; t += 2) {
    const uint32_t lo = static_cast<uint16_t>(w[t]);
    const uint32_t hi = t + 1 < taps ? static_cast<uint16_t>(w[t + 1]) : 0u;
    wpairs[t / 2] = static_cast<int32_t>(lo | hi << 16);
  }
  if (p.out_w <= 8) {
    Q8DwRows<4>(p, x, off, taps, wpairs, acc);
    return;
  }
  if (p.out_w <= 16) {
    Q8DwRows<2>(p, x, off, taps, wpairs, acc);
    return;
  }
  for (int64_t oy = 0; oy < p.out_h; ++oy) {
    int32_t* arow = acc + oy * p.out_w;
    const int16_t* rows[1] = {x + oy * p.stride_h * p.row};
    // Rows are readable to ceil(out_w / 32) * 32 lanes past each tap's offset (QDwParams).
    for (int64_t ox = 0; ox < p.out_w; ox += 32, rows[0] += 32) {
      __m512i out[2];
      Q8DwUnit<1>(rows, off, taps, wpairs, out);
      const int64_t n = p.out_w - ox;
      _mm512_mask_storeu_epi32(arow + ox, Q8Mask(n), out[0]);
      if (n > 16) _mm512_mask_storeu_epi32(arow + ox + 16, Q8Mask(n - 16), out[1]);
    }
  }
}

void QCentreAvx512Vnni(const uint8_t* src, int64_t n, int64_t rows, int64_t src_stride,
                       bool is_signed, int32_t zero, int16_t* even, int16_t* odd,
                       int64_t dst_stride) {
  const __m512i z = _mm512_set1_epi16(static_cast<int16_t>(zero));
  if (!odd) {
    // The tail mask depends on n only: made once for every row.
    const int64_t full = n / 32 * 32;
    const __mmask32 tail = (__mmask32{1} << (n - full)) - 1;
    for (int64_t r = 0; r < rows; ++r, src += src_stride, even += dst_stride) {
      for (int64_t i = 0; i < n; i += 32) {
        const __mmask32 m = i < full ? ~__mmask32{0} : tail;
        const __m256i b = _mm256_maskz_loadu_epi8(m, src + i);
        const __m512i w = is_signed ? _mm512_cvtepi8_epi16(b) : _mm512_cvtepu8_epi16(b);
        _mm512_mask_storeu_epi16(even + i, m, _mm512_sub_epi16(w, z));
      }
    }
    return;
  }
  for (int64_t r = 0; r < rows; ++r, src += src_stride, even += dst_stride, odd += dst_stride) {
    for (int64_t i = 0; i < n; i += 64) {  // 32 even and 32 odd codes: 16-bit lanes' bytes
      const int64_t left = n - i;
      const __mmask64 m = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
      const int64_t ne = (left >= 64 ? 64 : left + 1) / 2, no = (left >= 64 ? 64 : left) / 2;
      const __mmask32 me = ne >= 32 ? ~__mmask32{0} : (__mmask32{1} << ne) - 1;
      const __mmask32 mo = no >= 32 ? ~__mmask32{0} : (__mmask32{1} << no) - 1;
      const __m512i b = _mm512_maskz_loadu_epi8(m, src + i);
      const __m512i e = is_signed ? _mm512_srai_epi16(_mm512_slli_epi16(b, 8), 8)
                                  : _mm512_and_si512(b, _mm512_set1_epi16(0x00ff));
      const __m512i o = is_signed ? _mm512_srai_epi16(b, 8) : _mm512_srli_epi16(b, 8);
      _mm512_mask_storeu_epi16(even + i / 2, me, _mm512_sub_epi16(e, z));
      _mm512_mask_storeu_epi16(odd + i / 2, mo, _mm512_sub_epi16(o, z));
    }
  }
}

#endif
}  // namespace kiln::cpu
