// AVX2 depthwise convolution with 16 channels in the lanes (QDwLanesFn), for CPUs without
// VNNI. The tile holds each pixel's 16 centred codes as int16 (one ymm, 32 bytes a pixel: half
// the VNNI kernel's int32 lanes). Taps go in pairs: the two taps' pixels interleaved by
// unpacklo/unpackhi_epi16 and one vpmaddwd with the pair's weights per 8 channels (exact:
// centred codes and weights fit int16, a pair's sum int32), so the sums sit in two registers
// per pixel, channels 0-3, 8-11 and 4-7, 12-15, the order packs_epi32 restores. The epilogue
// per lane with per-lane multipliers and shifts.
#include <algorithm>
#include <cstring>

#include "backends/cpu/ukernels/int8_ukernels.h"
#include "kernels/requantize.h"

#if defined(__AVX2__)
#include <immintrin.h>
#endif

namespace kiln::cpu {
#if defined(__AVX2__)
namespace {

constexpr int64_t kPixelInt16 = 16;  // tile int16s per pixel

// Two 16x16 byte transposes at once, one per 128-bit lane: v[r] holds 32 bytes (columns) of
// row r; afterwards lane L of v[c] holds column 16 L + c's 16 bytes (byte r from row r).
inline void Transpose16x16x2(__m256i (&v)[16]) {
  __m256i a[16], b[16];
  for (int i = 0; i < 8; ++i) {
    a[i] = _mm256_unpacklo_epi8(v[2 * i], v[2 * i + 1]);
    a[i + 8] = _mm256_unpackhi_epi8(v[2 * i], v[2 * i + 1]);
  }
  for (int i = 0; i < 4; ++i) {
    b[i] = _mm256_unpacklo_epi16(a[2 * i], a[2 * i + 1]);
    b[4 + i] = _mm256_unpackhi_epi16(a[2 * i], a[2 * i + 1]);
    b[8 + i] = _mm256_unpacklo_epi16(a[8 + 2 * i], a[8 + 2 * i + 1]);
    b[12 + i] = _mm256_unpackhi_epi16(a[8 + 2 * i], a[8 + 2 * i + 1]);
  }
  for (int h = 0; h < 4; ++h) {
    const __m256i* q = b + 4 * h;
    const __m256i c0 = _mm256_unpacklo_epi32(q[0], q[1]);
    const __m256i c1 = _mm256_unpackhi_epi32(q[0], q[1]);
    const __m256i c2 = _mm256_unpacklo_epi32(q[2], q[3]);
    const __m256i c3 = _mm256_unpackhi_epi32(q[2], q[3]);
    v[4 * h] = _mm256_unpacklo_epi64(c0, c2);
    v[4 * h + 1] = _mm256_unpackhi_epi64(c0, c2);
    v[4 * h + 2] = _mm256_unpacklo_epi64(c1, c3);
    v[4 * h + 3] = _mm256_unpackhi_epi64(c1, c3);
  }
}

// 16 int32 values in channel order as the two halves the sums use: channels 0-3, 8-11 and
// 4-7, 12-15.
inline __m256i LowChannels(const int32_t* v) {
  return _mm256_permute2x128_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v)),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + 8)),
                                   0x20);
}
inline __m256i HighChannels(const int32_t* v) {
  return _mm256_permute2x128_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(v)),
                                   _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + 8)),
                                   0x31);
}

// Requantize's int32 form (every shift >= 33, QDwLaneBlock::high) of one half, before the
// zero point: as Q8RqHigh of int8_avx2.cc with per-lane multipliers (the odd lanes' shifted
// down for vpmuldq) and shifts.
struct HalfEpilogue {
  __m256i mult, mult_odd, round32, shift32;
};
inline HalfEpilogue MakeHalf(const QDwLaneBlock& b, bool high_channels) {
  const auto half = high_channels ? HighChannels : LowChannels;
  const __m256i mult = half(b.multiplier);
  return {mult, _mm256_srli_epi64(mult, 32), half(b.round32), half(b.shift32)};
}
inline __m256i HalfHigh(__m256i acc, const HalfEpilogue& e) {
  const __m256i ev = _mm256_mul_epi32(acc, e.mult);
  const __m256i od = _mm256_mul_epi32(_mm256_srli_epi64(acc, 32), e.mult_odd);
  const __m256i hi = _mm256_blend_epi32(_mm256_srli_epi64(ev, 32), od, 0xaa);
  return _mm256_srav_epi32(_mm256_add_epi32(hi, e.round32), e.shift32);
}

struct LaneEpilogue {
  HalfEpilogue lo, hi;
  __m256i out_zero, qmin, qmax;  // int16
  bool out_signed, high;
  const QDwLaneBlock* block;  // the 64-bit form's constants (not high)
  int32_t zero, min, max;
};

// One pixel's 16 outputs as int16 in channel order, zero point added and clamped: packs_epi32
// puts lo's lanes 0-3 and hi's 0-3 (channels 0-7) in the low 128 bits. Exact although packs
// and adds saturate: a value they change lies outside [qmin, qmax] either way.
inline __m256i PixelWords(__m256i lo, __m256i hi, const LaneEpilogue& e) {
  const __m256i w = _mm256_packs_epi32(HalfHigh(lo, e.lo), HalfHigh(hi, e.hi));
  return _mm256_min_epi16(_mm256_max_epi16(_mm256_adds_epi16(w, e.out_zero), e.qmin), e.qmax);
}

// Two pixels' 16 bytes each, in order, into out (32 bytes).
inline void StoreTwoPixels(__m256i w0, __m256i w1, const LaneEpilogue& e, uint8_t* out) {
  const __m256i b = e.out_signed ? _mm256_packs_epi16(w0, w1) : _mm256_packus_epi16(w0, w1);
  // Lane 0: pixel 0's channels 0-7, pixel 1's 0-7; lane 1: their channels 8-15.
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), _mm256_permute4x64_epi64(b, 0xd8));
}

// The 64-bit form, lane by lane (a layer with some shift below 33: rare).
inline void PixelPortable(__m256i lo, __m256i hi, const LaneEpilogue& e, uint8_t* out) {
  alignas(32) int32_t l[8], h[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(l), lo);
  _mm256_store_si256(reinterpret_cast<__m256i*>(h), hi);
  const QDwLaneBlock& b = *e.block;
  for (int c = 0; c < 16; ++c) {
    const int32_t acc = (c & 4) ? h[(c & 3) + (c & 8) / 2] : l[(c & 3) + (c & 8) / 2];
    const int32_t shift = static_cast<int32_t>(c % 2 ? b.shift_odd[c / 2] : b.shift_even[c / 2]);
    const int32_t v =
        RequantizeToOutput(acc, Requant{b.multiplier[c], shift}, e.zero, e.min, e.max);
    out[c] = static_cast<uint8_t>(v);
  }
}

// U output pixels (their tile pixels at src[u]) through every tap pair, then their epilogues.
// off holds each pair's two tile offsets; w each pair's 16 weight pairs, the two halves' 8
// each (QDwLanesFn, dw_lanes_tap_pairs).
template <int U>
inline void LanePixels(const int16_t* const* src, const int64_t* off, int64_t pairs,
                       const int32_t* w, __m256i offset_lo, __m256i offset_hi,
                       const LaneEpilogue& e, uint8_t* out) {
  __m256i lo[U], hi[U];
#pragma GCC unroll 4
  for (int u = 0; u < U; ++u) lo[u] = offset_lo, hi[u] = offset_hi;
#pragma GCC unroll 5
  for (int64_t q = 0; q < pairs; ++q) {
    const __m256i wlq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + q * 16));
    const __m256i whq = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(w + q * 16 + 8));
    const int64_t o0 = off[2 * q], o1 = off[2 * q + 1];
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) {
      const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src[u] + o0));
      const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(src[u] + o1));
      lo[u] = _mm256_add_epi32(lo[u], _mm256_madd_epi16(_mm256_unpacklo_epi16(a, b), wlq));
      hi[u] = _mm256_add_epi32(hi[u], _mm256_madd_epi16(_mm256_unpackhi_epi16(a, b), whq));
    }
  }
  if (!e.high) {
#pragma GCC unroll 4
    for (int u = 0; u < U; ++u) PixelPortable(lo[u], hi[u], e, out + u * 16);
    return;
  }
  if constexpr (U % 2 == 0) {
#pragma GCC unroll 2
    for (int u = 0; u < U; u += 2) {
      StoreTwoPixels(PixelWords(lo[u], hi[u], e), PixelWords(lo[u + 1], hi[u + 1], e), e,
                     out + u * 16);
    }
  } else {
    static_assert(U == 1);
    const __m256i w = PixelWords(lo[0], hi[0], e);
    const __m256i b = e.out_signed ? _mm256_packs_epi16(w, w) : _mm256_packus_epi16(w, w);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out),
                     _mm256_castsi256_si128(_mm256_permute4x64_epi64(b, 0xd8)));
  }
}

// Codes of one input pixel (its 16 channel bytes) centred into the tile at *dst, which steps
// one tile pixel per input pixel and skips the padding at each row's end.
template <bool kSigned>
inline void StorePixel(__m128i bytes, __m256i zero, int64_t in_w, int64_t skip, int64_t& ix,
                       int16_t*& dst) {
  const __m256i codes = kSigned ? _mm256_cvtepi8_epi16(bytes) : _mm256_cvtepu8_epi16(bytes);
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_sub_epi16(codes, zero));
  dst += kPixelInt16;
  if (++ix == in_w) {
    ix = 0;
    dst += skip;
  }
}

// Step 1: input pixels [begin, end) of the flattened planes (whole rows), the first one to
// tile pixel `dst`: 32 pixels per pair of transposes, then 16 (the last ones copied into a
// zeroed block: the planes end there).
template <bool kSigned>
void CodesIn(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc, int64_t begin,
             int64_t end, int16_t* dst) {
  const __m256i zero = _mm256_set1_epi16(static_cast<int16_t>(p.x_zero));
  const int64_t in_w = p.in_w, skip = (p.wp - p.in_w) * kPixelInt16;
  int64_t ix = 0;
  const uint8_t* rows[16];
  for (int c = 0; c < 16; ++c) rows[c] = x + std::min(c, nc - 1) * in_plane;  // past nc: unused
  int64_t p0 = begin;
  for (; p0 + 32 <= end; p0 += 32) {
    __m256i v[16];
#pragma GCC unroll 16
    for (int c = 0; c < 16; ++c) {
      v[c] = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(rows[c] + p0));
    }
    Transpose16x16x2(v);
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      StorePixel<kSigned>(_mm256_castsi256_si128(v[j]), zero, in_w, skip, ix, dst);
    }
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      StorePixel<kSigned>(_mm256_extracti128_si256(v[j], 1), zero, in_w, skip, ix, dst);
    }
  }
  for (; p0 < end; p0 += 16) {
    const int64_t n = std::min<int64_t>(16, end - p0);
    __m256i v[16];
    for (int c = 0; c < 16; ++c) {
      if (n == 16) {
        v[c] =
            _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(rows[c] + p0)));
      } else {
        alignas(16) uint8_t part[16] = {};
        std::memcpy(part, rows[c] + p0, static_cast<size_t>(n));
        v[c] = _mm256_castsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(part)));
      }
    }
    Transpose16x16x2(v);
    for (int j = 0; j < n; ++j) {
      StorePixel<kSigned>(_mm256_castsi256_si128(v[j]), zero, in_w, skip, ix, dst);
    }
  }
}

}  // namespace

void QDwLanesAvx2(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc,
                  const int32_t* w, const QDwLaneBlock& b, uint8_t* y, int64_t out_plane,
                  int64_t oy0, int64_t oy1, void* tile_bytes, uint8_t* otile) {
  auto* tile = static_cast<int16_t*>(tile_bytes);
  const int64_t wp = p.wp;
  const auto [rows, iy0, iy1, above, below] = QDwLanesBandOf(p, oy0, oy1);
  const __m256i z = _mm256_setzero_si256();
  for (int16_t* t = tile; t < tile + above * wp * kPixelInt16; t += kPixelInt16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t), z);
  }
  for (int16_t* t = tile + below * wp * kPixelInt16; t < tile + rows * wp * kPixelInt16;
       t += kPixelInt16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(t), z);
  }
  // 1. Codes in.
  int16_t* first = tile + (above * wp + p.pad_left) * kPixelInt16;
  if (p.x_signed) {
    CodesIn<true>(p, x, in_plane, nc, iy0 * p.in_w, iy1 * p.in_w, first);
  } else {
    CodesIn<false>(p, x, in_plane, nc, iy0 * p.in_w, iy1 * p.in_w, first);
  }
  // 2. The tap pairs' offsets (an odd last tap pairs with itself: its weight pair holds 0 in
  // the high int16); sums and epilogue 4 output pixels at a time.
  const int64_t taps = p.taps, pairs = (taps + 1) / 2;
  int64_t off[kQDwMaxTaps + 1];
  for (int64_t q = 0; q < pairs; ++q) {
    off[2 * q] = p.tap_offset[2 * q] * kPixelInt16;
    off[2 * q + 1] = p.tap_offset[std::min(2 * q + 1, taps - 1)] * kPixelInt16;
  }
  LaneEpilogue e;
  e.lo = MakeHalf(b, false);
  e.hi = MakeHalf(b, true);
  e.out_zero = _mm256_set1_epi16(static_cast<int16_t>(p.out_zero));
  e.qmin = _mm256_set1_epi16(static_cast<int16_t>(p.qmin));
  e.qmax = _mm256_set1_epi16(static_cast<int16_t>(p.qmax));
  e.out_signed = p.out_signed;
  e.high = b.high;
  e.block = &b;
  e.zero = p.out_zero;
  e.min = p.qmin;
  e.max = p.qmax;
  const __m256i offset_lo = LowChannels(b.offset), offset_hi = HighChannels(b.offset);
  const int64_t out_w = p.out_w;
  const int64_t row_step = p.stride_h * wp * kPixelInt16, col_step = p.stride_w * kPixelInt16;
  const int64_t count = (oy1 - oy0) * out_w;  // the band's output pixels
  const int16_t* row = tile;
  int64_t ox = 0;
  for (int64_t q = 0; q < count;) {
    const int16_t* src[4];
    const int u = static_cast<int>(std::min<int64_t>(4, count - q));
    for (int i = 0; i < u; ++i) {
      src[i] = row + ox * col_step;
      if (++ox == out_w) {
        ox = 0;
        row += row_step;
      }
    }
    if (u == 4) {
      LanePixels<4>(src, off, pairs, w, offset_lo, offset_hi, e, otile + q * 16);
    } else {
      for (int i = 0; i < u; ++i) {
        LanePixels<1>(src + i, off, pairs, w, offset_lo, offset_hi, e, otile + (q + i) * 16);
      }
    }
    q += u;
  }
  // 3. Bytes out: 32 output pixels per pair of transposes, then 16 (otile is readable to a
  // multiple of 16 pixels; the last ones stored byte by byte).
  uint8_t* out = y + oy0 * out_w;
  int64_t p0 = 0;
  for (; p0 + 32 <= count; p0 += 32) {
    __m256i v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      const uint8_t* s = otile + (p0 + j) * 16;  // pixels j and 16 + j
      v[j] = _mm256_loadu2_m128i(reinterpret_cast<const __m128i*>(s + 256),
                                 reinterpret_cast<const __m128i*>(s));
    }
    Transpose16x16x2(v);
    for (int c = 0; c < nc; ++c) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c * out_plane + p0), v[c]);
    }
  }
  for (; p0 < count; p0 += 16) {
    const int64_t n = std::min<int64_t>(16, count - p0);
    __m256i v[16];
#pragma GCC unroll 16
    for (int j = 0; j < 16; ++j) {
      v[j] = _mm256_castsi128_si256(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(otile + (p0 + j) * 16)));
    }
    Transpose16x16x2(v);
    for (int c = 0; c < nc; ++c) {
      uint8_t* dst = out + c * out_plane + p0;
      if (n == 16) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm256_castsi256_si128(v[c]));
      } else {
        alignas(16) uint8_t part[16];
        _mm_store_si128(reinterpret_cast<__m128i*>(part), _mm256_castsi256_si128(v[c]));
        std::memcpy(dst, part, static_cast<size_t>(n));
      }
    }
  }
}

#endif
}  // namespace kiln::cpu
