// AVX2 + FMA micro-kernels of the NCHW8c convolutions (conv_nchw8c.h): one ymm is one pixel's
// 8 channels of a block.
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/tile_width.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)
namespace {

constexpr int64_t B = 8;

// The epilogue's activation. The inline kinds (IsInlineActivation: relu / clip) clamp on the
// store between bounds held in registers; Activate<Vec256> there instead (a switch and the
// bounds set per vector) ran mobilenetv2 1.25x slower, its stem 1.8x. The others (SiLU,
// sigmoid, ...) run afterwards over each block's contiguous output range (Finish), as the
// GEMM tiles do.
struct Clamp {
  __m256 lo, hi;
  bool on = false;
  ActivationParams after;  // kNone for the inline kinds
  explicit Clamp(const ActivationParams& act) {
    float l = -__builtin_inff(), h = __builtin_inff();
    if (act.kind == Activation::kRelu) l = 0.f;
    if (act.kind == Activation::kClip) l = act.alpha, h = act.beta;
    on = act.kind == Activation::kRelu || act.kind == Activation::kClip;
    if (!IsInlineActivation(act.kind)) after = act;
    lo = _mm256_set1_ps(l);
    hi = _mm256_set1_ps(h);
  }
  __m256 operator()(__m256 v) const { return on ? _mm256_min_ps(hi, _mm256_max_ps(lo, v)) : v; }
  void Finish(float* y, int64_t n) const {
    if (after.kind != Activation::kNone) ActivateArray<Vec256>(y, y, n, after);
  }
};

// OBT output blocks x PT pixels: OBT * PT accumulators, per input channel OBT weight loads and
// PT broadcasts. w: the first block's weights, one 16-float Block16O row per input channel
// (the second block's are its other 8 floats).
template <int OBT, int PT>
inline void PointwiseTile(const float* x, int64_t plane, int64_t in_blocks, const float* w,
                          const float* bias, const float* residual, float* y, const Clamp& clamp) {
  __m256 acc[OBT][PT];  // in registers: every loop over o and p unrolled (as AVX-512's tiles)
#pragma GCC unroll 8
  for (int o = 0; o < OBT; ++o) {
    const __m256 b = bias ? _mm256_loadu_ps(bias + o * B) : _mm256_setzero_ps();
#pragma GCC unroll 16
    for (int p = 0; p < PT; ++p) acc[o][p] = b;
  }
  for (int64_t ib = 0; ib < in_blocks; ++ib) {
    const float* xb = x + ib * plane * B;
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __m256 wv[OBT];
#pragma GCC unroll 8
      for (int o = 0; o < OBT; ++o) wv[o] = _mm256_loadu_ps(w + o * B);
      w += 16;
#pragma GCC unroll 16
      for (int p = 0; p < PT; ++p) {
        const __m256 xv = _mm256_broadcast_ss(xb + p * B + j);
#pragma GCC unroll 8
        for (int o = 0; o < OBT; ++o) acc[o][p] = _mm256_fmadd_ps(wv[o], xv, acc[o][p]);
      }
    }
  }
#pragma GCC unroll 8
  for (int o = 0; o < OBT; ++o) {
#pragma GCC unroll 16
    for (int p = 0; p < PT; ++p) {
      __m256 v = acc[o][p];
      if (residual) v = _mm256_add_ps(v, _mm256_loadu_ps(residual + o * plane * B + p * B));
      _mm256_storeu_ps(y + o * plane * B + p * B, clamp(v));
    }
  }
}

// Output blocks [ob, ob + OBT) over pixels [p0, p1).
template <int OBT>
void PointwiseRange(const NCHW8cConvArgs& a, int64_t ob, int64_t p0, int64_t p1,
                    const Clamp& clamp) {
  const int64_t plane = a.out_h * a.out_w, in_blocks = a.in_c / B;
  const float* w = a.w + (ob / 2) * a.in_c * 16 + (ob % 2) * B;
  const float* bias = a.bias ? a.bias + ob * B : nullptr;
  const size_t off = static_cast<size_t>(ob * plane * B);
  float* y = a.y + off;
  const float* r = a.residual ? a.residual + off : nullptr;
  constexpr int PT = OBT == 2 ? 6 : 8;
  int64_t p = p0;
  for (; p + PT <= p1; p += PT) {
    PointwiseTile<OBT, PT>(a.x + p * B, plane, in_blocks, w, bias, r ? r + p * B : nullptr,
                           y + p * B, clamp);
  }
  for (; p < p1; ++p) {
    PointwiseTile<OBT, 1>(a.x + p * B, plane, in_blocks, w, bias, r ? r + p * B : nullptr,
                          y + p * B, clamp);
  }
  for (int o = 0; o < OBT; ++o) clamp.Finish(y + o * plane * B + p0 * B, (p1 - p0) * B);
}

// Input bytes of a chunk of pixels that every output block reads before the next chunk: small
// enough to stay in L2 while the blocks go over it, large enough that each output block writes
// long contiguous runs.
constexpr int64_t kChunkInputBytes = 64 * 1024;

}  // namespace

void NCHW8cPointwiseAvx2(const NCHW8cConvArgs& a, int64_t p0, int64_t p1) {
  const Clamp clamp(a.act);
  const int64_t out_blocks = a.out_c / B;
  const int64_t chunk = std::max<int64_t>(48, kChunkInputBytes / (a.in_c * 4) / 6 * 6);
  for (int64_t c0 = p0; c0 < p1; c0 += chunk) {
    const int64_t c1 = std::min(p1, c0 + chunk);
    int64_t ob = 0;
    for (; ob + 2 <= out_blocks; ob += 2) PointwiseRange<2>(a, ob, c0, c1, clamp);
    if (ob < out_blocks) PointwiseRange<1>(a, ob, c0, c1, clamp);
  }
}

namespace {

// OBT output blocks x PT pixels of one output row over input channels r.c0..r.c1. x: the
// zero-padded (or unpadded) image at the tile's first window, plain (kBlocked false) or NCHW8c
// (channel c is lane c % 8 of block c / 8, columns 8 floats apart); w: channel r.c0's
// Block16O weights. kStride: a.stride (1 or 2) as a constant, so each pixel's broadcast is a
// fixed displacement from the tap's column (conv_nchw8c_avx512.cc's DirectTile says why).
template <bool kBlocked, int OBT, int PT, int kStride>
inline void DirectTile(const NCHW8cConvArgs& a, const NCHW8cChannelRange& r, const float* x,
                       const float* w, const float* bias, const float* residual, float* y,
                       int64_t plane, const Clamp& clamp) {
  __m256 acc[OBT][PT];
#pragma GCC unroll 8
  for (int o = 0; o < OBT; ++o) {
    const __m256 b = bias ? _mm256_loadu_ps(bias + o * B) : _mm256_setzero_ps();
#pragma GCC unroll 16
    for (int p = 0; p < PT; ++p) {
      const int64_t off = o * plane * B + p * B;
      if (!r.first) {
        acc[o][p] = _mm256_loadu_ps(y + off);
      } else {
        acc[o][p] = residual ? _mm256_add_ps(b, _mm256_loadu_ps(residual + off)) : b;
      }
    }
  }
  constexpr int64_t cs = kBlocked ? B : 1;  // floats between two columns
  constexpr int64_t step = kStride * cs;
  const int64_t row_floats = a.in_w * cs;
  for (int64_t c = r.c0; c < r.c1; ++c) {
    const float* xc =
        kBlocked ? x + (c / B) * a.in_h * row_floats + c % B : x + c * a.in_h * a.in_w;
    for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
      const float* row = xc + ky * row_floats;
      for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
        __m256 wv[OBT];
#pragma GCC unroll 8
        for (int o = 0; o < OBT; ++o) wv[o] = _mm256_loadu_ps(w + o * B);
        w += 16;
        const float* col = row + kx * cs;
#pragma GCC unroll 16
        for (int p = 0; p < PT; ++p) {
          const __m256 xv = _mm256_broadcast_ss(col + p * step);
#pragma GCC unroll 8
          for (int o = 0; o < OBT; ++o) acc[o][p] = _mm256_fmadd_ps(wv[o], xv, acc[o][p]);
        }
      }
    }
  }
#pragma GCC unroll 8
  for (int o = 0; o < OBT; ++o) {
#pragma GCC unroll 16
    for (int p = 0; p < PT; ++p) {
      _mm256_storeu_ps(y + o * plane * B + p * B, r.last ? clamp(acc[o][p]) : acc[o][p]);
    }
  }
}

// Output row oy of blocks [ob, ob + OBT) over channels r: tiles of 6 pixels, the last up to
// 6 pixels of a row in one tile.
template <bool kBlocked, int OBT>
void DirectRow(const NCHW8cConvArgs& a, const NCHW8cChannelRange& r, int64_t ob, int64_t oy,
               const Clamp& clamp) {
  const int64_t plane = a.out_h * a.out_w, taps = a.kernel_h * a.kernel_w;
  const float* w = a.w + ((ob / 2) * a.in_c + r.c0) * taps * 16 + (ob % 2) * B;
  const float* bias = a.bias ? a.bias + ob * B : nullptr;
  constexpr int64_t cs = kBlocked ? B : 1;
  const float* x = a.x + oy * a.stride * a.in_w * cs;
  const int64_t off = (ob * plane + oy * a.out_w) * B, step = a.stride * cs;
  float* y = a.y + off;
  const float* res = a.residual ? a.residual + off : nullptr;
  for (int64_t ox = 0; ox < a.out_w;) {
    const int64_t pt = std::min<int64_t>(6, a.out_w - ox);
    const float* xt = x + ox * step;
    const float* rt = res ? res + ox * B : nullptr;
    float* yt = y + ox * B;
    WithTileWidth<6>(pt, [&](auto width) {
      constexpr int kWidth = decltype(width)::value;
      if (a.stride == 1) {
        DirectTile<kBlocked, OBT, kWidth, 1>(a, r, xt, w, bias, rt, yt, plane, clamp);
      } else {
        DirectTile<kBlocked, OBT, kWidth, 2>(a, r, xt, w, bias, rt, yt, plane, clamp);
      }
    });
    ox += pt;
  }
  if (r.last) {
    for (int o = 0; o < OBT; ++o) clamp.Finish(y + o * plane * B, a.out_w * B);
  }
}

// Weight bytes of a channel range that the rows of a block pair reuse from L1.
constexpr int64_t kRangeWeightBytes = 32 * 1024;

// Block pairs outermost; within one, the input channels in ranges whose weights stay in L1
// while every row of [oy0, oy1) runs them (the partial sums go through y).
template <bool kBlocked, int OBT>
void DirectBlocks(const NCHW8cConvArgs& a, int64_t ob, int64_t oy0, int64_t oy1,
                  const Clamp& clamp) {
  const int64_t taps = a.kernel_h * a.kernel_w;
  const int64_t per = std::max<int64_t>(8, kRangeWeightBytes / (taps * 16 * 4) / 8 * 8);
  for (int64_t c0 = 0; c0 < a.in_c; c0 += per) {
    const int64_t c1 = std::min(a.in_c, c0 + per);
    const NCHW8cChannelRange r{c0, c1, c0 == 0, c1 == a.in_c};
    for (int64_t oy = oy0; oy < oy1; ++oy) DirectRow<kBlocked, OBT>(a, r, ob, oy, clamp);
  }
}

template <bool kBlocked>
void DirectRows(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1) {
  const Clamp clamp(a.act);
  const int64_t out_blocks = a.out_c / B;
  int64_t ob = 0;
  for (; ob + 2 <= out_blocks; ob += 2) DirectBlocks<kBlocked, 2>(a, ob, oy0, oy1, clamp);
  if (ob < out_blocks) DirectBlocks<kBlocked, 1>(a, ob, oy0, oy1, clamp);
}

}  // namespace

void NCHW8cDirectAvx2(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1) {
  if (a.x_blocked) {
    DirectRows<true>(a, oy0, oy1);
  } else {
    DirectRows<false>(a, oy0, oy1);
  }
}

namespace {

// K x K depthwise over channel blocks [b0, b1): the 3x3 taps' weights stay in registers, 5x5
// ones are loaded per tap (L1).
template <int K>
void DepthwiseK(const NCHW8cConvArgs& a, int64_t b0, int64_t b1) {
  const Clamp clamp(a.act);
  const int64_t H = a.in_h, W = a.in_w, OH = a.out_h, OW = a.out_w, s = a.stride;
  const int64_t pl = a.pad_left, pt = a.pad_top;
  // Output columns whose K taps all fall inside the row: ox * s - pl >= 0 and
  // ox * s - pl + K - 1 <= W - 1.
  const int64_t ox_lo = (pl + s - 1) / s;
  const int64_t ox_hi = W - K + pl >= 0 ? (W - K + pl) / s : -1;  // inclusive
  for (int64_t b = b0; b < b1; ++b) {
    const float* x = a.x + b * H * W * B;
    float* y = a.y + b * OH * OW * B;
    const float* wb = a.w + (b / 2) * K * K * 16 + (b % 2) * B;  // Block16O [C/16][K][K][16]
    __m256 k3[9];
    if constexpr (K == 3) {
      for (int t = 0; t < 9; ++t) k3[t] = _mm256_loadu_ps(wb + t * 16);
    }
    auto tap = [&](int t) {
      if constexpr (K == 3) {
        return k3[t];
      } else {
        return _mm256_loadu_ps(wb + t * 16);
      }
    };
    const __m256 bias = a.bias ? _mm256_loadu_ps(a.bias + b * B) : _mm256_setzero_ps();
    for (int64_t oy = 0; oy < OH; ++oy) {
      const float* rows[K];
      bool valid[K];
      bool all_rows = true;
      for (int r = 0; r < K; ++r) {
        const int64_t iy = oy * s - pt + r;
        valid[r] = iy >= 0 && iy < H;
        all_rows = all_rows && valid[r];
        rows[r] = x + (valid[r] ? iy : 0) * W * B;
      }
      float* yr = y + oy * OW * B;
      auto edge = [&](int64_t ox) {
        __m256 acc = bias;
        for (int r = 0; r < K; ++r) {
          if (!valid[r]) continue;
          for (int c = 0; c < K; ++c) {
            const int64_t ix = ox * s - pl + c;
            if (ix < 0 || ix >= W) continue;
            acc = _mm256_fmadd_ps(tap(r * K + c), _mm256_loadu_ps(rows[r] + ix * B), acc);
          }
        }
        _mm256_storeu_ps(yr + ox * B, clamp(acc));
      };
      int64_t ox = 0;
      for (; ox < std::min(ox_lo, OW); ++ox) edge(ox);
      if (all_rows) {
        for (; ox + 3 <= ox_hi && ox + 3 < OW; ox += 4) {
          __m256 a0 = bias, a1 = bias, a2 = bias, a3 = bias;
          for (int r = 0; r < K; ++r) {
            const float* q = rows[r] + (ox * s - pl) * B;
            for (int c = 0; c < K; ++c) {
              const __m256 kk = tap(r * K + c);
              a0 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(q + c * B), a0);
              a1 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(q + (s + c) * B), a1);
              a2 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(q + (2 * s + c) * B), a2);
              a3 = _mm256_fmadd_ps(kk, _mm256_loadu_ps(q + (3 * s + c) * B), a3);
            }
          }
          _mm256_storeu_ps(yr + (ox + 0) * B, clamp(a0));
          _mm256_storeu_ps(yr + (ox + 1) * B, clamp(a1));
          _mm256_storeu_ps(yr + (ox + 2) * B, clamp(a2));
          _mm256_storeu_ps(yr + (ox + 3) * B, clamp(a3));
        }
      }
      for (; ox < OW; ++ox) edge(ox);
      clamp.Finish(yr, OW * B);
    }
  }
}

}  // namespace

void NCHW8cDepthwiseAvx2(const NCHW8cConvArgs& a, int64_t b0, int64_t b1) {
  if (a.kernel_h == 5) {
    DepthwiseK<5>(a, b0, b1);
  } else if (a.kernel_h == 1) {  // a per-channel scale and shift (densenet's pre-activation)
    DepthwiseK<1>(a, b0, b1);
  } else {
    DepthwiseK<3>(a, b0, b1);
  }
}
#endif
}  // namespace kiln::cpu
