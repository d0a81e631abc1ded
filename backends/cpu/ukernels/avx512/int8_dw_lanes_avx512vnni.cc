// AVX-512 VNNI depthwise convolution with 16 channels in the lanes (QDwLanesFn): 16x16 byte
// transposes in and out, one vpdpwssd per tap and output pixel (the weight in the low int16
// of each lane, 0 in the high one; on column pairs, stride 1 or 2, two taps per vpdpwssd),
// the epilogue per lane with per-lane multipliers and shifts.
#include <algorithm>

#include "backends/cpu/kernels/int8_avx512_pack.h"
#include "backends/cpu/ukernels/int8_ukernels.h"

#if defined(__AVX512F__) && defined(__AVX512VNNI__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX512F__) && defined(__AVX512VNNI__)
namespace {

// Four 16x16 byte transposes at once, one per 128-bit lane (the unpacks work within lanes):
// v[r] holds 64 bytes (columns) of row r; afterwards lane L of v[c] holds column 16 L + c's
// 16 bytes (byte r from row r). Unpacks of bytes, words, dwords and qwords: 64 instructions.
inline void Transpose16x16x4(__m512i (&v)[16]) {
  __m512i a[16], b[16];
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm512_unpacklo_epi8(v[2 * i], v[2 * i + 1]);
    a[i + 8] = _mm512_unpackhi_epi8(v[2 * i], v[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    b[i] = _mm512_unpacklo_epi16(a[2 * i], a[2 * i + 1]);
    b[4 + i] = _mm512_unpackhi_epi16(a[2 * i], a[2 * i + 1]);
    b[8 + i] = _mm512_unpacklo_epi16(a[8 + 2 * i], a[8 + 2 * i + 1]);
    b[12 + i] = _mm512_unpackhi_epi16(a[8 + 2 * i], a[8 + 2 * i + 1]);
  }
  for (int h = 0; h < 4; ++h) {
    const __m512i* q = b + 4 * h;
    const __m512i c0 = _mm512_unpacklo_epi32(q[0], q[1]);
    const __m512i c1 = _mm512_unpackhi_epi32(q[0], q[1]);
    const __m512i c2 = _mm512_unpacklo_epi32(q[2], q[3]);
    const __m512i c3 = _mm512_unpackhi_epi32(q[2], q[3]);
    v[4 * h] = _mm512_unpacklo_epi64(c0, c2);
    v[4 * h + 1] = _mm512_unpackhi_epi64(c0, c2);
    v[4 * h + 2] = _mm512_unpacklo_epi64(c1, c3);
    v[4 * h + 3] = _mm512_unpackhi_epi64(c1, c3);
  }
}

// One 16x16 transpose (the tails): v[r] holds 16 bytes of row r, afterwards v[c] column c's.
inline void Transpose16x16(__m128i (&v)[16]) {
  __m512i w[16];
  for (int r = 0; r < 16; ++r) w[r] = _mm512_castsi128_si512(v[r]);
  Transpose16x16x4(w);
  for (int c = 0; c < 16; ++c) v[c] = _mm512_castsi512_si128(w[c]);
}

inline __mmask16 LaneMask(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1);
}

// The per-lane epilogue constants (QDwLaneBlock), in the two forms of Q8RequantVec: 64-bit
// products of the even and odd lanes, or (every shift >= 33) their high halves in int32 lanes.
struct LaneEpilogue {
  __m512i mult, mult_odd, round_even, round_odd, shift_even, shift_odd;
  __m512i round32, shift32;
  __m512i out_zero, qmin, qmax;
  __m512i out_zero64, qmin64, qmax64;
  Q8PackConsts pack;  // LaneRequant4's
  bool high;
};

inline LaneEpilogue MakeEpilogue(const QDwLanesParams& p, const QDwLaneBlock& b) {
  return {_mm512_loadu_si512(b.multiplier),
          _mm512_loadu_si512(b.multiplier_odd),
          _mm512_loadu_si512(b.round_even),
          _mm512_loadu_si512(b.round_odd),
          _mm512_loadu_si512(b.shift_even),
          _mm512_loadu_si512(b.shift_odd),
          _mm512_loadu_si512(b.round32),
          _mm512_loadu_si512(b.shift32),
          _mm512_set1_epi32(p.out_zero),
          _mm512_set1_epi32(p.qmin),
          _mm512_set1_epi32(p.qmax),
          _mm512_set1_epi64(p.out_zero),
          _mm512_set1_epi64(p.qmin),
          _mm512_set1_epi64(p.qmax),
          Q8Pack(p.out_zero, p.qmin, p.qmax, p.out_signed),
          b.high};
}

// Requantize's int32 form (e.high) per lane, before the zero point: Q8RequantHigh of
// int8_gemm_avx512vnni.cc with per-lane multipliers and shifts.
inline __m512i LaneHigh(__m512i acc, const LaneEpilogue& e) {
  const __m512i ev = _mm512_mul_epi32(acc, e.mult);
  const __m512i od = _mm512_mul_epi32(_mm512_srli_epi64(acc, 32), e.mult_odd);
  const __m512i hi = _mm512_mask_shuffle_epi32(od, 0x5555, ev, _MM_PERM_DDBB);  // as Q8RqHigh
  return _mm512_srav_epi32(_mm512_add_epi32(hi, e.round32), e.shift32);
}

// out_zero + Requantize(acc) per lane, clamped, as 16 bytes. Requantize's int32 saturation is
// left out as in Q8RequantVec: qmin/qmax lie inside the 8-bit range, so it cannot matter.
inline __m128i LaneRequant(__m512i acc, const LaneEpilogue& e) {
  if (e.high) {
    const __m512i v = _mm512_add_epi32(LaneHigh(acc, e), e.out_zero);
    return _mm512_cvtepi32_epi8(_mm512_min_epi32(_mm512_max_epi32(v, e.qmin), e.qmax));
  }
  const __m512i ev = _mm512_mul_epi32(acc, e.mult);
  const __m512i od = _mm512_mul_epi32(_mm512_srli_epi64(acc, 32), e.mult_odd);
  // + out_zero and the clamps in 64 bits (Q8ClampJoin), then the halves joined.
  __m512i re = _mm512_srav_epi64(_mm512_add_epi64(ev, e.round_even), e.shift_even);
  __m512i ro = _mm512_srav_epi64(_mm512_add_epi64(od, e.round_odd), e.shift_odd);
  re = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(re, e.out_zero64), e.qmin64), e.qmax64);
  ro = _mm512_min_epi64(_mm512_max_epi64(_mm512_add_epi64(ro, e.out_zero64), e.qmin64), e.qmax64);
  return _mm512_cvtepi32_epi8(_mm512_mask_blend_epi32(0xaaaa, re, _mm512_slli_epi64(ro, 32)));
}

// Four output pixels' epilogues (e.high) on packed lanes (int8_avx512_pack.h), as
// Q8RequantRow32 does for the GEMM, and one dword permute to put each pixel's 16 bytes together:
// 128-bit lane u holds pixel u's.
inline __m512i LaneRequant4(__m512i a0, __m512i a1, __m512i a2, __m512i a3, const LaneEpilogue& e) {
  const __m512i w01 = Q8PackWords(LaneHigh(a0, e), LaneHigh(a1, e), e.pack);
  const __m512i w23 = Q8PackWords(LaneHigh(a2, e), LaneHigh(a3, e), e.pack);
  // 128-bit lane k: channels 4k..4k+3 of pixels 0, 1, 2, 3 (a dword each).
  const __m512i b = Q8PackBytes(w01, w23, e.pack);
  const __m512i order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
  return _mm512_permutexvar_epi32(order, b);
}

// U output pixels (their tile pixels at tile + pixel[u]) through every tap, then their
// epilogues into out, 16 bytes each.
template <int U>
inline void LanePixels(const int32_t* tile, const int32_t* pixel, const int64_t* off, int64_t taps,
                       const int32_t* w, __m512i offset, const LaneEpilogue& e, uint8_t* out) {
  const int32_t* src[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) src[u] = tile + pixel[u];
  __m512i acc[U];
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) acc[u] = offset;
    // Unrolled by 9 (3x3 windows: one pass): without it GCC copies every accumulator around each
    // loop-carried vpdpwssd (1.12x on a 384x14x14 layer; a constant tap count was slower).
#pragma GCC unroll 9
  for (int64_t t = 0; t < taps; ++t) {
    const __m512i wv = _mm512_loadu_si512(w + t * 16);
    const int64_t o = off[t];
#pragma GCC unroll 8
    for (int u = 0; u < U; ++u) {
      acc[u] = _mm512_dpwssd_epi32(acc[u], _mm512_loadu_si512(src[u] + o), wv);
    }
  }
  if (U % 4 == 0 && e.high) {
#pragma GCC unroll 2
    for (int u = 0; u < U; u += 4) {
      _mm512_storeu_si512(out + u * 16,
                          LaneRequant4(acc[u], acc[u + 1], acc[u + 2], acc[u + 3], e));
    }
    return;
  }
#pragma GCC unroll 8
  for (int u = 0; u < U; ++u) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + u * 16), LaneRequant(acc[u], e));
  }
}

// The 16 channel planes a step-1 call reads (planes past nc repeat the last: never stored).
struct ChannelRows {
  const uint8_t* row[16];
  ChannelRows(const uint8_t* x, int64_t in_plane, int nc) {
    for (int c = 0; c < 16; ++c) row[c] = x + std::min(c, nc - 1) * in_plane;
  }
  // Pixels p0 .. p0 + 63 transposed: lane L of v[j] holds pixel 16 L + j's 16 channels.
  void Load64(int64_t p0, __m512i (&v)[16]) const {
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c) v[c] = _mm512_loadu_si512(row[c] + p0);
    Transpose16x16x4(v);
  }
  // Pixels p0 .. p0 + n - 1 (n <= 16) transposed: v[j] holds pixel j's 16 channels.
  void Load16(int64_t p0, int64_t n, __m128i (&v)[16]) const {
    const __mmask16 m = LaneMask(n);
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c) v[c] = _mm_maskz_loadu_epi8(m, row[c] + p0);
    Transpose16x16(v);
  }
};

// Step 1 for one chunk of n <= 16 input pixels (v: their 16 channels each, transposed): each
// widened, centred and stored at *dst, which steps one tile pixel per input pixel and skips
// the padding at each row's end. Fully unrolled for whole chunks, so v stays in registers.
template <bool kSigned, bool kWhole>
inline void StorePixels(const __m128i (&v)[16], int64_t n, __m512i zero, int64_t in_w, int64_t skip,
                        int64_t& ix, int32_t*& dst) {
#pragma GCC unroll 16
  for (int j = 0; j < 16; ++j) {
    if (!kWhole && j >= n) return;
    const __m512i codes = kSigned ? _mm512_cvtepi8_epi32(v[j]) : _mm512_cvtepu8_epi32(v[j]);
    _mm512_storeu_si512(dst, _mm512_sub_epi32(codes, zero));
    dst += 16;
    if (++ix == in_w) {
      ix = 0;
      dst += skip;
    }
  }
}

// Step 1: input pixels [begin, end) of the flattened planes (whole rows), the first one to
// tile pixel `dst`.
template <bool kSigned>
void CodesIn(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc, int64_t begin,
             int64_t end, int32_t* dst) {
  const __m512i zero = _mm512_set1_epi32(p.x_zero);
  const int64_t in_w = p.in_w, skip = (p.wp - p.in_w) * 16;
  int64_t ix = 0;
  const ChannelRows rows(x, in_plane, nc);
  int64_t p0 = begin;
  // 64 pixels per step (four transposes in the lanes of zmm registers), through a 1 KiB
  // buffer each pixel's codes are widened from.
  alignas(64) uint8_t t[16][64];
  for (; p0 + 64 <= end; p0 += 64) {
    __m512i v[16];
    rows.Load64(p0, v);
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) _mm512_store_si512(t[j], v[j]);
#pragma GCC unroll 4
    for (int l = 0; l < 4; ++l) {
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) {
        const __m128i b = _mm_load_si128(reinterpret_cast<const __m128i*>(t[j] + 16 * l));
        const __m512i codes = kSigned ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
        _mm512_storeu_si512(dst, _mm512_sub_epi32(codes, zero));
        dst += 16;
        if (++ix == in_w) {
          ix = 0;
          dst += skip;
        }
      }
    }
  }
  for (; p0 < end; p0 += 16) {
    const int64_t n = std::min<int64_t>(16, end - p0);
    __m128i v[16];
    rows.Load16(p0, n, v);
    if (n == 16) {
      StorePixels<kSigned, true>(v, n, zero, in_w, skip, ix, dst);
    } else {
      StorePixels<kSigned, false>(v, n, zero, in_w, skip, ix, dst);
    }
  }
}

// Step 1 in the column_pairs form: input pixels [begin, end) of the flattened planes (whole
// rows of even width, so no pair straddles two rows), pixels 2m and 2m + 1 into tile pixel
// *dst as 16 dwords of their two centred int16 values, `skip` int16 past each row's last pair.
template <bool kSigned>
void CodePairsIn(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc, int64_t begin,
                 int64_t end, int16_t* dst) {
  const __m512i zero = _mm512_set1_epi16(static_cast<int16_t>(p.x_zero));
  const int64_t pairs_per_row = p.in_w / 2, skip = (p.wp - p.in_w) * 16;
  int64_t pair = 0;
  const ChannelRows rows(x, in_plane, nc);
  // Two pixels' 16 bytes each (a: the even one), interleaved byte by byte: widened and
  // centred, they are the tile pixel.
  const auto store = [&](__m256i ab) {
    const __m512i codes = kSigned ? _mm512_cvtepi8_epi16(ab) : _mm512_cvtepu8_epi16(ab);
    _mm512_storeu_si512(dst, _mm512_sub_epi16(codes, zero));
    dst += 32;
    if (++pair == pairs_per_row) {
      pair = 0;
      dst += skip;
    }
  };
  int64_t p0 = begin;
  for (; p0 + 64 <= end; p0 += 64) {  // four 16x16 transposes in the lanes of zmm registers
    __m512i v[16];
    rows.Load64(p0, v);
    // lo[i] / hi[i], 128-bit lane L: channels 0-7 / 8-15 of pixels 16 L + 2 i and 16 L + 2 i + 1,
    // interleaved. Tile pixel (L, i) is lane L of lo[i] then lane L of hi[i]: gathered two
    // lanes at a time by one permute.
    const __m512i low_lanes = _mm512_setr_epi64(0, 1, 8, 9, 2, 3, 10, 11);
    const __m512i high_lanes = _mm512_setr_epi64(4, 5, 12, 13, 6, 7, 14, 15);
    __m512i pairs01[8], pairs23[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      const __m512i lo = _mm512_unpacklo_epi8(v[2 * i], v[2 * i + 1]);
      const __m512i hi = _mm512_unpackhi_epi8(v[2 * i], v[2 * i + 1]);
      pairs01[i] = _mm512_permutex2var_epi64(lo, low_lanes, hi);
      pairs23[i] = _mm512_permutex2var_epi64(lo, high_lanes, hi);
    }
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) store(_mm512_castsi512_si256(pairs01[i]));
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) store(_mm512_extracti64x4_epi64(pairs01[i], 1));
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) store(_mm512_castsi512_si256(pairs23[i]));
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) store(_mm512_extracti64x4_epi64(pairs23[i], 1));
  }
  for (; p0 < end; p0 += 16) {  // n is even: whole rows of even width
    const int64_t n = std::min<int64_t>(16, end - p0);
    __m128i v[16];
    rows.Load16(p0, n, v);
    for (int64_t i = 0; i < n / 2; ++i) {
      const __m128i lo = _mm_unpacklo_epi8(v[2 * i], v[2 * i + 1]);
      const __m128i hi = _mm_unpackhi_epi8(v[2 * i], v[2 * i + 1]);
      store(_mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1));
    }
  }
}

}  // namespace

void QDwLanesAvx512Vnni(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc,
                        const int32_t* w, const QDwLaneBlock& b, uint8_t* y, int64_t out_plane,
                        int64_t oy0, int64_t oy1, void* tile_bytes, uint8_t* otile) {
  auto* tile = static_cast<int32_t*>(tile_bytes);
  // The tile's row in tile pixels (64 bytes each): a pixel, or with column_pairs two columns.
  const int64_t wp = p.column_pairs ? p.wp / 2 : p.wp;
  const auto [rows, iy0, iy1, above, below] = QDwLanesBandOf(p, oy0, oy1);
  const __m512i z = _mm512_setzero_si512();
  for (int32_t* t = tile; t < tile + above * wp * 16; t += 16) _mm512_storeu_si512(t, z);
  for (int32_t* t = tile + below * wp * 16; t < tile + rows * wp * 16; t += 16) {
    _mm512_storeu_si512(t, z);
  }
  // 1. Codes in: 16 pixels of the flattened input rows per transpose (none where the band is
  // all padding: then iy1 == iy0).
  if (p.column_pairs) {
    auto* first = reinterpret_cast<int16_t*>(tile + (above * wp + p.pad_left / 2) * 16);
    if (p.x_signed) {
      CodePairsIn<true>(p, x, in_plane, nc, iy0 * p.in_w, iy1 * p.in_w, first);
    } else {
      CodePairsIn<false>(p, x, in_plane, nc, iy0 * p.in_w, iy1 * p.in_w, first);
    }
  } else {
    int32_t* first = tile + (above * wp + p.pad_left) * 16;
    if (p.x_signed) {
      CodesIn<true>(p, x, in_plane, nc, iy0 * p.in_w, iy1 * p.in_w, first);
    } else {
      CodesIn<false>(p, x, in_plane, nc, iy0 * p.in_w, iy1 * p.in_w, first);
    }
  }
  // 2. Sums and epilogue, 8 output pixels at a time (independent vpdpwssd chains), from the
  // tile pixels p.pixel_offset gives. With column_pairs at stride 1 (out_w even) an output's
  // parity alternates with the output, so each 16 outputs go as the 8 of either parity
  // (`split`: pixel_offset and otile hold them in that order, the even-indexed first) with the
  // weights of their parity; at stride 2 every output has parity pair_shift.
  const LaneEpilogue e = MakeEpilogue(p, b);
  const __m512i offset = _mm512_loadu_si512(b.offset);
  const int64_t taps = p.taps, out_w = p.out_w;
  const bool split = p.column_pairs && p.stride_w == 1;
  const int32_t* w_first = w + (p.column_pairs ? p.pair_shift * taps * 16 : 0);
  const int32_t* w_second = w + (1 - p.pair_shift) * taps * 16;  // split: the odd-indexed
  int64_t off[kQDwMaxTaps];
  for (int64_t t = 0; t < taps; ++t) off[t] = p.tap_offset[t] * 16;
  const int64_t count = (oy1 - oy0) * out_w;  // the band's output pixels
  const int group = split ? 16 : 8;
  const int32_t* pix = p.pixel_offset;
  int64_t q = 0;
  for (; q + group <= count; q += group) {
    LanePixels<8>(tile, pix + q, off, taps, w_first, offset, e, otile + q * 16);
    if (split)
      LanePixels<8>(tile, pix + q + 8, off, taps, w_second, offset, e, otile + (q + 8) * 16);
  }
  for (int i = 0; i < count - q; ++i) {
    const int64_t slot = QDwLanesSlot(split, i);
    LanePixels<1>(tile, pix + q + slot, off, taps, split && (i & 1) ? w_second : w_first, offset, e,
                  otile + (q + slot) * 16);
  }
  // 3. Bytes out: 64 output pixels per step, then 16 per transpose (otile is readable to a
  // multiple of 16; pixel j of each 16 is in slot QDwLanesSlot(split, j)).
  uint8_t* out = y + oy0 * out_w;
  int64_t p0 = 0;
  for (; p0 + 64 <= count; p0 += 64) {  // 64 pixels per step, as in step 1
    __m512i v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      // Pixels j, 16 + j, 32 + j, 48 + j.
      const uint8_t* q = otile + (p0 + QDwLanesSlot(split, j)) * 16;
      __m512i r = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(q)));
      r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 256)), 1);
      r = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 512)), 2);
      v[j] = _mm512_inserti32x4(r, _mm_loadu_si128(reinterpret_cast<const __m128i*>(q + 768)), 3);
    }
    Transpose16x16x4(v);
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c) {
      if (c < nc) _mm512_storeu_si512(out + c * out_plane + p0, v[c]);
    }
  }
  for (; p0 < count; p0 += 16) {
    const __mmask16 m = LaneMask(count - p0);
    __m128i v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      v[j] = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(otile + (p0 + QDwLanesSlot(split, j)) * 16));
    }
    Transpose16x16(v);
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c) {
      if (c < nc) _mm_mask_storeu_epi8(out + c * out_plane + p0, m, v[c]);
    }
  }
}

#endif
}  // namespace kiln::cpu
