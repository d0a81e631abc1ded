// AVX2 depthwise convolution with 16 channels in the lanes (DwLanesFn), as the AVX-512 kernel
// (dwconv_lanes_avx512.cc: why the lanes) with each pixel's 16 channels in two ymm halves.
//
// The plane kernel spends more on a small plane's row set-up and masked edge vectors than on
// its FMAs (mobilenetv2's 576 x 14x14 layers ran at half ONNX Runtime's speed, which keeps
// channels in the lanes of its NCHWc layout). Here 8 x 8 in-register transposes turn 16 planes
// into a zero-padded pixel-major tile, each tap of 8 output pixels is 8 full-width FMAs on one
// weight vector with no masks, and 16-pixel blocks go back through the same transposes with
// the residual and activation.
#include <immintrin.h>

#include <algorithm>
#include <cstring>

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)
namespace {

// r[i] lane j -> r[j] lane i: unpacks, in-lane shuffles, then 128-bit lane swaps (24 shuffles).
inline void Transpose8x8(__m256 (&r)[8]) {
  __m256 t[8], u[8];
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    u[i] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], _MM_SHUFFLE(3, 2, 3, 2));
    u[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(1, 0, 1, 0));
    u[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], _MM_SHUFFLE(3, 2, 3, 2));
  }
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);
    r[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);
  }
}

// How far ahead (floats) each plane's input line is requested while the tile fills, and its
// output line while the blocks go back: 16 planes are read and 16 written at once, more streams
// than the hardware prefetchers follow, and a cold store waits on its read for ownership. As in
// the AVX-512 kernel: cold 144 x 56x56 1.15x, in mobilenetv2 32 x 112x112 1.07-1.15x, 144 x
// 56x56 1.05-1.08x, stride 2 to 28x28 1.08-1.13x (Zen 3, both orders of ab_ops.py).
constexpr int kReadAhead = 32, kWriteAhead = 32;

inline void ZeroPixels(float* dst, int64_t pixels) {
  for (int64_t j = 0; j < 2 * pixels; ++j) _mm256_store_ps(dst + j * 8, _mm256_setzero_ps());
}

// Output pixels per FMA group: 8 accumulators cover two FMA pipes of 4-cycle latency.
constexpr int kGroup = 8;

// The n (<= 16) output pixels from (oy, ox) on, in row order (a block may span rows), into
// out[16][16], pixel-major; one half (8 channels) at a time.
template <int KH, int KW, int SW>
void ComputeBlock(const DwConvParams& p, const float* tile, int64_t tw, const float* w16,
                  const float* bias16, int64_t oy, int64_t ox, int n, float* out) {
  const int kh = KH > 0 ? KH : static_cast<int>(p.kernel_h);
  const int kw = KW > 0 ? KW : static_cast<int>(p.kernel_w);
  const int64_t sw = SW > 0 ? SW : p.stride_w;
  const float* base[16];
  for (int j = 0; j < 16; ++j) {
    base[j] = tile + (oy * p.stride_h * tw + ox * sw) * 16;
    if (j + 1 < n && ++ox == p.out_w) ox = 0, ++oy;  // past n: the last pixel again
  }
  for (int g0 = 0; g0 < n; g0 += kGroup) {
    for (int h = 0; h < 16; h += 8) {
      const __m256 bias = _mm256_load_ps(bias16 + h);
      __m256 acc[kGroup];
#pragma GCC unroll 8
      for (int j = 0; j < kGroup; ++j) acc[j] = bias;
#pragma GCC unroll 7
      for (int ky = 0; ky < kh; ++ky) {
#pragma GCC unroll 7
        for (int kx = 0; kx < kw; ++kx) {
          const __m256 w = _mm256_loadu_ps(w16 + (ky * kw + kx) * 16 + h);
          const int64_t off = (ky * tw + kx) * 16 + h;
#pragma GCC unroll 8
          for (int j = 0; j < kGroup; ++j) {
            acc[j] = _mm256_fmadd_ps(w, _mm256_load_ps(base[g0 + j] + off), acc[j]);
          }
        }
      }
#pragma GCC unroll 8
      for (int j = 0; j < kGroup; ++j) _mm256_store_ps(out + (g0 + j) * 16 + h, acc[j]);
    }
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
    for (int64_t ix0 = 0; ix0 < cols_in; ix0 += 8) {
      const int n = static_cast<int>(std::min<int64_t>(8, cols_in - ix0));
      const __m256i m = Vec256::Mask(n);
      float* dst = row + (pl + ix0) * 16;
      for (int h = 0; h < 16; h += 8) {
        __m256 v[8];
#pragma GCC unroll 8
        for (int c = 0; c < 8; ++c) {
          const float* src = x + (h + c) * in_plane + iy * p.in_w + ix0;
          if (h + c < lanes) __builtin_prefetch(src + kReadAhead);
          v[c] = h + c < lanes ? (n == 8 ? _mm256_loadu_ps(src) : _mm256_maskload_ps(src, m))
                               : _mm256_setzero_ps();
        }
        Transpose8x8(v);
#pragma GCC unroll 8
        for (int j = 0; j < 8; ++j) {
          if (j < n) _mm256_store_ps(dst + j * 16 + h, v[j]);
        }
      }
    }
  }
}

// Pixels [q, q + 8) of out (pixel-major) for channels [h, h + 8): r[c] = channel h + c's pixels.
inline void ChannelRows(const float* out, int q, int h, __m256 (&r)[8]) {
#pragma GCC unroll 8
  for (int j = 0; j < 8; ++j) r[j] = _mm256_load_ps(out + (q + j) * 16 + h);
  Transpose8x8(r);
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
  alignas(32) float b16[16];
  std::memcpy(b16, bias16, sizeof(b16));
  const bool relu = p.act.kind == Activation::kRelu, clip = p.act.kind == Activation::kClip;
  const bool inline_act = relu || clip || p.act.kind == Activation::kNone;
  const __m256 lo = _mm256_set1_ps(relu ? 0.f : p.act.alpha), hi = _mm256_set1_ps(p.act.beta);
  for (int64_t oy0 = 0; oy0 < p.out_h; oy0 += band) {
    const int64_t oy1 = std::min(p.out_h, oy0 + band);
    FillTileRows(p, x, lanes, tw, oy0 * p.stride_h - p.pad_top,
                 (oy1 - oy0 - 1) * p.stride_h + p.kernel_h, tile);
    int64_t oy = 0, ox = 0;  // the block's first pixel, in the band
    for (int64_t p0 = oy0 * p.out_w; p0 < oy1 * p.out_w; p0 += 16) {
      const int n = static_cast<int>(std::min<int64_t>(16, oy1 * p.out_w - p0));
      ComputeBlock<KH, KW, SW>(p, tile, tw, w16, b16, oy, ox, n, out);
      ox += 16;
      while (ox >= p.out_w) ox -= p.out_w, ++oy;
      if (!inline_act && !residual) ActivateArray<Vec256>(out, out, 16 * 16, p.act);
      for (int q = 0; q < n; q += 8) {
        const int nq = std::min(8, n - q);
        for (int h = 0; h < lanes; h += 8) {
          __m256 r[8];
          ChannelRows(out, q, h, r);
          for (int c = 0; c < 8 && h + c < lanes; ++c) {
            float* dst = y + (h + c) * out_plane + p0 + q;
            __builtin_prefetch(dst + kWriteAhead, 1);
            __m256 v = r[c];
            // The residual is read right before y is written: they may share a buffer.
            if (residual) {
              const float* res = residual + (h + c) * out_plane + p0 + q;
              v = _mm256_add_ps(v, Vec256::LoadPartial(res, nq));
            }
            if (relu || clip) v = _mm256_max_ps(v, lo);
            if (clip) v = _mm256_min_ps(v, hi);
            Vec256::StorePartial(dst, v, nq);
          }
        }
      }
    }
  }
  if (!inline_act && residual) {
    for (int c = 0; c < lanes; ++c) {
      ActivateArray<Vec256>(y + c * out_plane, y + c * out_plane, out_plane, p.act);
    }
  }
}

}  // namespace

void DwConvLanesAvx2(const DwConvParams& p, const float* x, const float* w16, const float* bias16,
                     const float* residual, float* y, int lanes, float* scratch) {
  const bool k3 = p.kernel_h == 3 && p.kernel_w == 3, k5 = p.kernel_h == 5 && p.kernel_w == 5;
  auto run = k3   ? (p.stride_w == 1 ? DwLanes<3, 3, 1> : DwLanes<3, 3, 2>)
             : k5 ? (p.stride_w == 1 ? DwLanes<5, 5, 1> : DwLanes<5, 5, 2>)
                  : DwLanes<0, 0, 0>;
  run(p, x, w16, bias16, residual, y, lanes, scratch);
}
#endif
}  // namespace kiln::cpu
