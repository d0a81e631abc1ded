// AVX-512 depthwise convolution with 16 channels in the lanes (DwLanesFn).
//
// The plane kernel (dwconv_impl.h) puts output columns in the lanes: a 28-wide row is two
// masked vectors, every 4-row block sets up row pointers and lane masks, and small planes
// spend more on that than on their 9 FMAs per vector. Here 16 channel planes are transposed
// (16 x 16 floats in registers) into a zero-padded pixel-major tile, so every tap of every
// output pixel is one full-width FMA for 16 channels whatever the plane's width, with no
// masks; 16 output pixels at a time are transposed back, the residual added and the
// activation applied on the way to the planes.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/avx512/transpose_avx512.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
namespace {

inline __mmask16 FirstLanes(int64_t n) {
  return n >= 16 ? static_cast<__mmask16>(0xffff) : static_cast<__mmask16>((1u << n) - 1u);
}

// Zero pixels (16 floats each) with vector stores: the borders are a few pixels per row, where
// a memset call costs more than the stores.
inline void ZeroPixels(float* dst, int64_t pixels) {
  for (int64_t j = 0; j < pixels; ++j) _mm512_store_ps(dst + j * 16, _mm512_setzero_ps());
}

// Output pixels per FMA group: 8 accumulators hide the FMA latency, and with 9 weights they
// leave registers for the addresses.
constexpr int kGroup = 8;

// The n (<= 16) output pixels from (oy, ox) on, in row order (a block may span rows), of the
// tile into out[16][16], pixel-major. KH / KW / SW fixed at compile time, or 0 for p's.
template <int KH, int KW, int SW>
void ComputeBlock(const DwConvParams& p, const float* tile, int64_t tw, const __m512* wv,
                  __m512 bias, int64_t oy, int64_t ox, int n, float* out) {
  const int kh = KH > 0 ? KH : static_cast<int>(p.kernel_h);
  const int kw = KW > 0 ? KW : static_cast<int>(p.kernel_w);
  const int64_t sw = SW > 0 ? SW : p.stride_w;
  const float* base[16];
  for (int j = 0; j < 16; ++j) {
    base[j] = tile + (oy * p.stride_h * tw + ox * sw) * 16;
    if (j + 1 < n && ++ox == p.out_w) ox = 0, ++oy;  // past n: the last pixel again
  }
  for (int g0 = 0; g0 < n; g0 += kGroup) {
    __m512 acc[kGroup];
#pragma GCC unroll 8
    for (int j = 0; j < kGroup; ++j) acc[j] = bias;
#pragma GCC unroll 7
    for (int ky = 0; ky < kh; ++ky) {
#pragma GCC unroll 7
      for (int kx = 0; kx < kw; ++kx) {
        const __m512 w = wv[ky * kw + kx];
        const int64_t off = (ky * tw + kx) * 16;
#pragma GCC unroll 8
        for (int j = 0; j < kGroup; ++j) {
          acc[j] = _mm512_fmadd_ps(w, _mm512_load_ps(base[g0 + j] + off), acc[j]);
        }
      }
    }
#pragma GCC unroll 8
    for (int j = 0; j < kGroup; ++j) _mm512_store_ps(out + (g0 + j) * 16, acc[j]);
  }
}

// The band's `rows` tile rows: row r is input row iy0 + r (zero outside the input), its
// pixels shifted right by pad_left, zero in the horizontal padding.
void FillTileRows(const DwConvParams& p, const float* x, int lanes, int64_t tw, int64_t iy0,
                  int64_t rows, float* tile) {
  const int64_t in_plane = p.in_h * p.in_w, pl = p.pad_left;
  const int64_t cols_in = std::min(p.in_w, tw - pl);
  for (int64_t r = 0; r < rows; ++r) {
    float* row = tile + r * tw * 16;
    const int64_t iy = iy0 + r;
    if (iy < 0 || iy >= p.in_h) {
      ZeroPixels(row, tw);
      continue;
    }
    ZeroPixels(row, pl);
    ZeroPixels(row + (pl + cols_in) * 16, tw - pl - cols_in);
    for (int64_t ix0 = 0; ix0 < cols_in; ix0 += 16) {
      const int64_t n = std::min<int64_t>(16, cols_in - ix0);
      const __mmask16 m = FirstLanes(n);
      __m512 v[16];
#pragma GCC unroll 16
      for (int c = 0; c < 16; ++c) {
        const float* src = x + c * in_plane + iy * p.in_w + ix0;
        if (c < lanes) __builtin_prefetch(src + 32);  // 16 planes read at once, as above
        v[c] = c < lanes ? _mm512_maskz_loadu_ps(m, src) : _mm512_setzero_ps();
      }
      Transpose16x16(v);
      // Pixel by pixel with constant indices: a loop to n became a memcpy through the stack.
      float* dst = row + (pl + ix0) * 16;
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) {
        if (j < n) _mm512_store_ps(dst + j * 16, v[j]);
      }
    }
  }
}

template <int KH, int KW, int SW>
void DwLanes(const DwConvParams& p, const float* x, const float* w16, const float* bias16,
             const float* residual, float* y, int lanes, float* scratch) {
  const int64_t band = DwLanesBandRows(p), tw = DwLanesTileCols(p);
  const int64_t out_plane = p.out_h * p.out_w;
  float* tile = scratch;
  float* out = scratch + DwLanesTileRows(p) * tw * 16;  // 16 x 16 floats
  // Rows past a short last block are transposed too: keep them finite.
  std::memset(out, 0, 16 * 16 * sizeof(float));
  __m512 wv[kDwLanesMaxTaps];
  const int64_t taps = p.kernel_h * p.kernel_w;
  for (int64_t t = 0; t < taps; ++t) wv[t] = _mm512_loadu_ps(w16 + t * 16);
  const __m512 bias = _mm512_loadu_ps(bias16);
  const bool relu = p.act.kind == Activation::kRelu, clip = p.act.kind == Activation::kClip;
  const bool inline_act = relu || clip || p.act.kind == Activation::kNone;
  const __m512 lo = _mm512_set1_ps(relu ? 0.f : p.act.alpha), hi = _mm512_set1_ps(p.act.beta);
  // Bands of output rows whose input rows fit the tile (all of them for planes up to 56x56).
  for (int64_t oy0 = 0; oy0 < p.out_h; oy0 += band) {
    const int64_t oy1 = std::min(p.out_h, oy0 + band);
    FillTileRows(p, x, lanes, tw, oy0 * p.stride_h - p.pad_top,
                 (oy1 - oy0 - 1) * p.stride_h + p.kernel_h, tile);
    int64_t oy = 0, ox = 0;  // the block's first pixel, in the band
    for (int64_t p0 = oy0 * p.out_w; p0 < oy1 * p.out_w; p0 += 16) {
      const int n = static_cast<int>(std::min<int64_t>(16, oy1 * p.out_w - p0));
      ComputeBlock<KH, KW, SW>(p, tile, tw, wv, bias, oy, ox, n, out);
      ox += 16;
      while (ox >= p.out_w) ox -= p.out_w, ++oy;
      // Other activations without a residual: here, on the block still in L1 (with one, over
      // the planes at the end: the residual comes first).
      if (!inline_act && !residual) ActivateArray<Vec512>(out, out, 16 * 16, p.act);
      __m512 r[16];
#pragma GCC unroll 16
      for (int j = 0; j < 16; ++j) r[j] = _mm512_load_ps(out + j * 16);
      Transpose16x16(r);
      const __mmask16 m = FirstLanes(n);
      for (int c = 0; c < lanes; ++c) {
        // The line this plane's store reaches two blocks on (blocks step one line): 16 planes
        // written at once, each store otherwise waiting on its read for ownership when cold.
        __builtin_prefetch(y + c * out_plane + p0 + 32, 1);
        __m512 v = r[c];
        // The residual is read right before y is written: they may share a buffer.
        if (residual) {
          v = _mm512_add_ps(v, _mm512_maskz_loadu_ps(m, residual + c * out_plane + p0));
        }
        if (relu || clip) v = _mm512_max_ps(v, lo);
        if (clip) v = _mm512_min_ps(v, hi);
        _mm512_mask_storeu_ps(y + c * out_plane + p0, m, v);
      }
    }
  }
  if (!inline_act && residual) {
    for (int c = 0; c < lanes; ++c) {
      ActivateArray<Vec512>(y + c * out_plane, y + c * out_plane, out_plane, p.act);
    }
  }
}

}  // namespace

void DwConvLanesAvx512(const DwConvParams& p, const float* x, const float* w16, const float* bias16,
                       const float* residual, float* y, int lanes, float* scratch) {
  const bool k3 = p.kernel_h == 3 && p.kernel_w == 3, k5 = p.kernel_h == 5 && p.kernel_w == 5;
  auto run = k3   ? (p.stride_w == 1 ? DwLanes<3, 3, 1> : DwLanes<3, 3, 2>)
             : k5 ? (p.stride_w == 1 ? DwLanes<5, 5, 1> : DwLanes<5, 5, 2>)
                  : DwLanes<0, 0, 0>;
  run(p, x, w16, bias16, residual, y, lanes, scratch);
}
#endif
}  // namespace kiln::cpu
