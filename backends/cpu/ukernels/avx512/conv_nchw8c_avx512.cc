// AVX-512 micro-kernels of the NCHW8c convolutions (conv_nchw8c.h). The layout stays 8 wide
// (one format for AVX2 and AVX-512 targets, no 16-channel padding of 24-channel layers); a zmm
// holds two 8-channel groups: for 1x1 layers and stems the two blocks of one 16-float Block16O
// weight row (one pixel, 16 output channels), for depthwise layers two pixels of one block.
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/tile_width.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
namespace {

constexpr int64_t B = 8;

// As the AVX2 kernels' Clamp (conv_nchw8c_avx2.cc): relu / clip between bounds held in
// registers on the store, the other activations afterwards over each block's output range.
struct Clamp512 {
  __m512 lo, hi;
  bool on = false;
  ActivationParams after;  // kNone for the inline kinds
  explicit Clamp512(const ActivationParams& act) {
    float l = -__builtin_inff(), h = __builtin_inff();
    if (act.kind == Activation::kRelu) l = 0.f;
    if (act.kind == Activation::kClip) l = act.alpha, h = act.beta;
    on = act.kind == Activation::kRelu || act.kind == Activation::kClip;
    if (!IsInlineActivation(act.kind)) after = act;
    lo = _mm512_set1_ps(l);
    hi = _mm512_set1_ps(h);
  }
  __m512 operator()(__m512 v) const { return on ? _mm512_min_ps(hi, _mm512_max_ps(lo, v)) : v; }
  void Finish(float* y, int64_t n) const {
    if (after.kind != Activation::kNone) ActivateArray<Vec512>(y, y, n, after);
  }
};

// The 16 output channels of pair q (blocks 2q, 2q + 1): its bias, the second half zero when the
// layer has an odd number of blocks and this is the last pair.
inline __m512 PairBias(const float* bias, bool two_blocks) {
  if (!bias) return _mm512_setzero_ps();
  return two_blocks ? _mm512_loadu_ps(bias) : _mm512_maskz_loadu_ps(0x00ff, bias);
}

// Stores a pixel's 16 channels: the low 8 at lo (block 2q), the high 8 at lo + plane * B (block
// 2q + 1) unless the pair has one block.
inline void StorePair(float* lo, int64_t block_stride, bool two_blocks, __m512 v) {
  _mm256_storeu_ps(lo, _mm512_castps512_ps256(v));
  if (two_blocks) _mm256_storeu_ps(lo + block_stride, _mm512_extractf32x8_ps(v, 1));
}

inline __m512 LoadPair(const float* lo, int64_t block_stride, bool two_blocks) {
  const __m512 v = _mm512_castps256_ps512(_mm256_loadu_ps(lo));
  return two_blocks ? _mm512_insertf32x8(v, _mm256_loadu_ps(lo + block_stride), 1)
                    : _mm512_insertf32x8(v, _mm256_setzero_ps(), 1);
}

// QT pairs of output blocks x PT pixels: QT * PT accumulators, per input channel QT weight
// rows (16 floats each, read in place from Block16O) and PT broadcasts. `full_pairs`: how many
// of the QT pairs have both blocks (all but possibly the layer's last).
template <int QT, int PT>
inline void PointwiseTile(const float* x, int64_t plane, int64_t in_c, const float* w,
                          const float* bias, const float* residual, float* y, int full_pairs,
                          const Clamp512& clamp) {
  __m512 acc[QT][PT];  // in registers: every loop over q and p unrolled (see DirectTile)
#pragma GCC unroll 2
  for (int q = 0; q < QT; ++q) {
    const __m512 b = PairBias(bias ? bias + q * 16 : nullptr, q < full_pairs);
#pragma GCC unroll 16
    for (int p = 0; p < PT; ++p) acc[q][p] = b;
  }
  const int64_t wq = in_c * 16;  // floats between two pairs' weights
  for (int64_t ib = 0; ib < in_c / B; ++ib) {
    const float* xb = x + ib * plane * B;
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __m512 wv[QT];
#pragma GCC unroll 2
      for (int q = 0; q < QT; ++q) wv[q] = _mm512_loadu_ps(w + q * wq);
      w += 16;
#pragma GCC unroll 16
      for (int p = 0; p < PT; ++p) {
        const __m512 xv = _mm512_set1_ps(xb[p * B + j]);
#pragma GCC unroll 2
        for (int q = 0; q < QT; ++q) acc[q][p] = _mm512_fmadd_ps(wv[q], xv, acc[q][p]);
      }
    }
  }
  const int64_t bs = plane * B;
#pragma GCC unroll 2
  for (int q = 0; q < QT; ++q) {
    const bool two = q < full_pairs;
#pragma GCC unroll 16
    for (int p = 0; p < PT; ++p) {
      __m512 v = acc[q][p];
      const int64_t off = 2 * q * bs + p * B;
      if (residual) v = _mm512_add_ps(v, LoadPair(residual + off, bs, two));
      StorePair(y + off, bs, two, clamp(v));
    }
  }
}

// Pairs [q0, q0 + QT) over pixels [p0, p1).
template <int QT>
void PointwiseRange(const NCHW8cConvArgs& a, int64_t q0, int64_t p0, int64_t p1,
                    const Clamp512& clamp) {
  const int64_t plane = a.out_h * a.out_w, out_blocks = a.out_c / B;
  const float* w = a.w + q0 * a.in_c * 16;
  const float* bias = a.bias ? a.bias + q0 * 16 : nullptr;
  const size_t off = static_cast<size_t>(2 * q0 * plane * B);
  float* y = a.y + off;
  const float* r = a.residual ? a.residual + off : nullptr;
  // Pairs with both blocks: all but a last pair holding the layer's odd block.
  const int full = static_cast<int>(std::min<int64_t>(QT, out_blocks / 2 - q0));
  constexpr int PT = QT == 2 ? 12 : 16;
  int64_t p = p0;
  for (; p + PT <= p1; p += PT) {
    PointwiseTile<QT, PT>(a.x + p * B, plane, a.in_c, w, bias, r ? r + p * B : nullptr, y + p * B,
                          full, clamp);
  }
  for (; p + 4 <= p1; p += 4) {
    PointwiseTile<QT, 4>(a.x + p * B, plane, a.in_c, w, bias, r ? r + p * B : nullptr, y + p * B,
                         full, clamp);
  }
  for (; p < p1; ++p) {
    PointwiseTile<QT, 1>(a.x + p * B, plane, a.in_c, w, bias, r ? r + p * B : nullptr, y + p * B,
                         full, clamp);
  }
  const int64_t blocks = std::min<int64_t>(2 * QT, out_blocks - 2 * q0);
  for (int64_t o = 0; o < blocks; ++o) clamp.Finish(y + o * plane * B + p0 * B, (p1 - p0) * B);
}

// Input bytes of a chunk of pixels that every output pair reads before the next chunk (as the
// AVX2 kernel's).
constexpr int64_t kChunkInputBytes = 64 * 1024;

}  // namespace

void NCHW8cPointwiseAvx512(const NCHW8cConvArgs& a, int64_t p0, int64_t p1) {
  const Clamp512 clamp(a.act);
  const int64_t pairs = (a.out_c / B + 1) / 2;
  const int64_t chunk = std::max<int64_t>(48, kChunkInputBytes / (a.in_c * 4) / 12 * 12);
  for (int64_t c0 = p0; c0 < p1; c0 += chunk) {
    const int64_t c1 = std::min(p1, c0 + chunk);
    int64_t q = 0;
    for (; q + 2 <= pairs; q += 2) PointwiseRange<2>(a, q, c0, c1, clamp);
    if (q < pairs) PointwiseRange<1>(a, q, c0, c1, clamp);
  }
}

namespace {

// QT pairs of output blocks x PT pixels of one output row over input channels r.c0..r.c1. x:
// the zero-padded (or unpadded) image at the tile's first window, plain (kBlocked false:
// channel c's plane, columns 1 float apart) or NCHW8c (channel c is lane c % 8 of block
// c / 8, columns 8 floats apart). w: the Block16O weights of channel r.c0, in the loop's
// order (channel, row, column, 16 floats each). kStride: a.stride (1 or 2), a constant so that
// each pixel's broadcast reads at a fixed displacement from its tap's column: with a runtime
// stride GCC stepped one index register per pixel, a chain of 12-14 dependent adds per tap,
// as long as the tap's FMAs. The loops over pairs and pixels are unrolled by pragma: without,
// GCC kept the accumulators in a stack array, loaded into registers before the taps and stored
// back after them, 56 more memory operations per tile (squeezenet's stem: 27 taps per tile,
// 1.09-1.18x with them gone).
template <bool kBlocked, int QT, int PT, int kStride>
inline void DirectTile(const NCHW8cConvArgs& a, const NCHW8cChannelRange& r,
                       const int64_t* tap_offset, const float* x, const float* w, const float* bias,
                       const float* residual, float* y, int64_t plane, int full_pairs,
                       const Clamp512& clamp) {
  const int64_t bs = plane * B;
  __m512 acc[QT][PT];
#pragma GCC unroll 2
  for (int q = 0; q < QT; ++q) {
    const __m512 b = PairBias(bias ? bias + q * 16 : nullptr, q < full_pairs);
#pragma GCC unroll 14
    for (int p = 0; p < PT; ++p) {
      const int64_t off = 2 * q * bs + p * B;
      if (!r.first) {
        acc[q][p] = LoadPair(y + off, bs, q < full_pairs);
      } else {
        acc[q][p] = residual ? _mm512_add_ps(b, LoadPair(residual + off, bs, q < full_pairs)) : b;
      }
    }
  }
  constexpr int64_t cs = kBlocked ? B : 1;  // floats between two columns
  constexpr int64_t step = kStride * cs;
  const int64_t taps = a.kernel_h * a.kernel_w, wq = a.in_c * taps * 16;
  const int64_t row_floats = a.in_w * cs;
  // One flat loop over the window's taps (offsets made once per call), as the plain stems';
  // for plain input over every channel's taps at once (a stem's 27-147).
  auto taps_of = [&](const float* xc, const int64_t* off, int64_t n) {
    for (int64_t t = 0; t < n; ++t) {
      __m512 wv[QT];
#pragma GCC unroll 2
      for (int q = 0; q < QT; ++q) wv[q] = _mm512_loadu_ps(w + q * wq);
      w += 16;
      const float* col = xc + off[t];
#pragma GCC unroll 14
      for (int p = 0; p < PT; ++p) {
        const __m512 xv = _mm512_set1_ps(col[p * step]);
#pragma GCC unroll 2
        for (int q = 0; q < QT; ++q) acc[q][p] = _mm512_fmadd_ps(wv[q], xv, acc[q][p]);
      }
    }
  };
  if constexpr (kBlocked) {
    for (int64_t c = r.c0; c < r.c1; ++c) {
      taps_of(x + (c / B) * a.in_h * row_floats + c % B, tap_offset, taps);
    }
  } else {
    taps_of(x, tap_offset + r.c0 * taps, (r.c1 - r.c0) * taps);
  }
#pragma GCC unroll 2
  for (int q = 0; q < QT; ++q) {
    const bool two = q < full_pairs;
#pragma GCC unroll 14
    for (int p = 0; p < PT; ++p) {
      StorePair(y + 2 * q * bs + p * B, bs, two, r.last ? clamp(acc[q][p]) : acc[q][p]);
    }
  }
}

// Output row oy of pairs [q0, q0 + QT) over channels r.
template <bool kBlocked, int QT>
void DirectRow(const NCHW8cConvArgs& a, const NCHW8cChannelRange& r, const int64_t* toff,
               int64_t q0, int64_t oy, const Clamp512& clamp) {
  const int64_t plane = a.out_h * a.out_w, taps = a.kernel_h * a.kernel_w;
  const int64_t out_blocks = a.out_c / B;
  const float* w = a.w + (q0 * a.in_c + r.c0) * taps * 16;
  const float* bias = a.bias ? a.bias + q0 * 16 : nullptr;
  constexpr int64_t cs = kBlocked ? B : 1;
  const float* x = a.x + oy * a.stride * a.in_w * cs;
  const int64_t off = (2 * q0 * plane + oy * a.out_w) * B;
  float* y = a.y + off;
  const float* res = a.residual ? a.residual + off : nullptr;
  const int full = static_cast<int>(std::min<int64_t>(QT, out_blocks / 2 - q0));
  const int64_t step = a.stride * cs;
  for (int64_t ox = 0; ox < a.out_w;) {
    const int64_t left = a.out_w - ox;
    // Rows in the fewest tiles of at most 14 pixels, of equal widths: 7-, 13- and 14-pixel
    // rows take one tile (a 1-pixel tile would load two weight rows per two FMAs), 27 = 14 +
    // 13, not 12 + 12 + 3 (a 3-pixel tile's 6 accumulators do not cover the FMA latency).
    const int64_t pt = (left + (left + 13) / 14 - 1) / ((left + 13) / 14);
    WithTileWidth<14>(pt, [&](auto width) {
      constexpr int kWidth = decltype(width)::value;
      const float* xt = x + ox * step;
      const float* rt = res ? res + ox * B : nullptr;
      if (a.stride == 1) {
        DirectTile<kBlocked, QT, kWidth, 1>(a, r, toff, xt, w, bias, rt, y + ox * B, plane, full,
                                            clamp);
      } else {
        DirectTile<kBlocked, QT, kWidth, 2>(a, r, toff, xt, w, bias, rt, y + ox * B, plane, full,
                                            clamp);
      }
    });
    ox += pt;
  }
  if (r.last) {
    const int64_t blocks = std::min<int64_t>(2 * QT, out_blocks - 2 * q0);
    for (int64_t o = 0; o < blocks; ++o) clamp.Finish(y + o * plane * B, a.out_w * B);
  }
}

// Windows up to 7x7 over up to 4 plain input channels (ClassifyNCHW8cConv).
constexpr int64_t kMaxTaps = 4 * 49;

// Weight bytes of a channel range that the rows of a pair group reuse from L1.
constexpr int64_t kRangeWeightBytes = 32 * 1024;

// Pair groups outermost; within one, the input channels in ranges whose weights stay in L1
// while every row of [oy0, oy1) runs them (the partial sums go through y). One range per
// group for the stems; 3x3 layers take 24 channels per range (56 with one pair).
template <bool kBlocked, int QT>
void DirectGroup(const NCHW8cConvArgs& a, int64_t q, int64_t oy0, int64_t oy1,
                 const Clamp512& clamp) {
  const int64_t taps = a.kernel_h * a.kernel_w;
  const int64_t per = std::max<int64_t>(8, kRangeWeightBytes / (taps * 16 * 4 * QT) / 8 * 8);
  // Tap (ky, kx) from a window's first input: ky rows and kx columns on; for plain input, of
  // every channel (its plane on).
  constexpr int64_t cs = kBlocked ? B : 1;
  int64_t toff[kMaxTaps];
  const int64_t offsets = kBlocked ? taps : a.in_c * taps;
  for (int64_t i = 0; i < offsets; ++i) {
    const int64_t c = i / taps, t = i % taps;
    toff[i] = c * a.in_h * a.in_w + (t / a.kernel_w * a.in_w + t % a.kernel_w) * cs;
  }
  for (int64_t c0 = 0; c0 < a.in_c; c0 += per) {
    const int64_t c1 = std::min(a.in_c, c0 + per);
    const NCHW8cChannelRange r{c0, c1, c0 == 0, c1 == a.in_c};
    for (int64_t oy = oy0; oy < oy1; ++oy) DirectRow<kBlocked, QT>(a, r, toff, q, oy, clamp);
  }
}

template <bool kBlocked>
void DirectRows(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1) {
  const Clamp512 clamp(a.act);
  const int64_t pairs = (a.out_c / B + 1) / 2;
  int64_t q = 0;
  for (; q + 2 <= pairs; q += 2) DirectGroup<kBlocked, 2>(a, q, oy0, oy1, clamp);
  if (q < pairs) DirectGroup<kBlocked, 1>(a, q, oy0, oy1, clamp);
}

}  // namespace

void NCHW8cDirectAvx512(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1) {
  if (a.x_blocked) {
    DirectRows<true>(a, oy0, oy1);
  } else {
    DirectRows<false>(a, oy0, oy1);
  }
}

namespace {

// Two output pixels of one block in a zmm. Stride 1: the taps of column c for pixels ox and
// ox + 1 are the 16 contiguous floats at input column ox - pad + c. Stride 2: they are columns
// c and c + 2 relative to row (column 2 ox - pad), the low (even c) or high (odd c) halves of
// the column pairs P[c / 2] and P[c / 2 + 1] (one 128-bit-lane shuffle); the last tap takes
// column K + 1 with a ymm insert, so no load reaches past the window.
template <int K, int S>
inline __m512 PairTaps(const float* row, const __m512* k, __m512 acc) {
  if constexpr (S == 1) {
    for (int c = 0; c < K; ++c) acc = _mm512_fmadd_ps(k[c], _mm512_loadu_ps(row + c * B), acc);
  } else {
    constexpr int kPairs = (K + 1) / 2;
    __m512 pair[kPairs];  // pair[m]: input columns 2m and 2m + 1
    for (int m = 0; m < kPairs; ++m) pair[m] = _mm512_loadu_ps(row + 2 * m * B);
    for (int c = 0; c + 1 < K; ++c) {
      const __m512 lo = pair[c / 2], hi = pair[c / 2 + 1];
      const __m512 v =
          c % 2 == 0 ? _mm512_shuffle_f32x4(lo, hi, 0x44) : _mm512_shuffle_f32x4(lo, hi, 0xEE);
      acc = _mm512_fmadd_ps(k[c], v, acc);
    }
    const __m512 last = _mm512_insertf32x8(pair[kPairs - 1], _mm256_loadu_ps(row + (K + 1) * B), 1);
    acc = _mm512_fmadd_ps(k[K - 1], last, acc);
  }
  return acc;
}

// K x K depthwise, stride S, over channel blocks [b0, b1).
template <int K, int S>
void DepthwiseKS(const NCHW8cConvArgs& a, int64_t b0, int64_t b1) {
  const Clamp512 clamp(a.act);
  const __m256 lo8 = _mm512_castps512_ps256(clamp.lo), hi8 = _mm512_castps512_ps256(clamp.hi);
  const int64_t H = a.in_h, W = a.in_w, OH = a.out_h, OW = a.out_w;
  const int64_t pl = a.pad_left, pt = a.pad_top;
  // Output columns whose K taps all fall inside the row: ox * S - pl >= 0 and
  // ox * S - pl + K - 1 <= W - 1.
  const int64_t ox_lo = (pl + S - 1) / S;
  const int64_t ox_hi = W - K + pl >= 0 ? (W - K + pl) / S : -1;  // inclusive
  for (int64_t b = b0; b < b1; ++b) {
    const float* x = a.x + b * H * W * B;
    float* y = a.y + b * OH * OW * B;
    const float* wb = a.w + (b / 2) * K * K * 16 + (b % 2) * B;  // Block16O [C/16][K][K][16]
    __m512 k[K * K];  // each tap's 8 weights in both halves
    for (int t = 0; t < K * K; ++t) k[t] = _mm512_broadcast_f32x8(_mm256_loadu_ps(wb + t * 16));
    const __m256 bias8 = a.bias ? _mm256_loadu_ps(a.bias + b * B) : _mm256_setzero_ps();
    const __m512 bias = _mm512_broadcast_f32x8(bias8);
    for (int64_t oy = 0; oy < OH; ++oy) {
      const float* rows[K];
      bool valid[K];
      bool all_rows = true;
      for (int r = 0; r < K; ++r) {
        const int64_t iy = oy * S - pt + r;
        valid[r] = iy >= 0 && iy < H;
        all_rows = all_rows && valid[r];
        rows[r] = x + (valid[r] ? iy : 0) * W * B;
      }
      float* yr = y + oy * OW * B;
      auto edge = [&](int64_t ox) {
        __m256 acc = bias8;
        for (int r = 0; r < K; ++r) {
          if (!valid[r]) continue;
          for (int c = 0; c < K; ++c) {
            const int64_t ix = ox * S - pl + c;
            if (ix < 0 || ix >= W) continue;
            acc = _mm256_fmadd_ps(_mm512_castps512_ps256(k[r * K + c]),
                                  _mm256_loadu_ps(rows[r] + ix * B), acc);
          }
        }
        if (clamp.on) acc = _mm256_min_ps(hi8, _mm256_max_ps(lo8, acc));
        _mm256_storeu_ps(yr + ox * B, acc);
      };
      int64_t ox = 0;
      for (; ox < std::min(ox_lo, OW); ++ox) edge(ox);
      if (all_rows) {
        for (; ox + 7 <= ox_hi && ox + 7 < OW; ox += 8) {
          __m512 a0 = bias, a1 = bias, a2 = bias, a3 = bias;
          for (int r = 0; r < K; ++r) {
            const float* q = rows[r] + (ox * S - pl) * B;
            a0 = PairTaps<K, S>(q, k + r * K, a0);
            a1 = PairTaps<K, S>(q + 2 * S * B, k + r * K, a1);
            a2 = PairTaps<K, S>(q + 4 * S * B, k + r * K, a2);
            a3 = PairTaps<K, S>(q + 6 * S * B, k + r * K, a3);
          }
          _mm512_storeu_ps(yr + (ox + 0) * B, clamp(a0));
          _mm512_storeu_ps(yr + (ox + 2) * B, clamp(a1));
          _mm512_storeu_ps(yr + (ox + 4) * B, clamp(a2));
          _mm512_storeu_ps(yr + (ox + 6) * B, clamp(a3));
        }
        for (; ox + 1 <= ox_hi && ox + 1 < OW; ox += 2) {
          __m512 a0 = bias;
          for (int r = 0; r < K; ++r) {
            a0 = PairTaps<K, S>(rows[r] + (ox * S - pl) * B, k + r * K, a0);
          }
          _mm512_storeu_ps(yr + ox * B, clamp(a0));
        }
      }
      for (; ox < OW; ++ox) edge(ox);
      clamp.Finish(yr, OW * B);
    }
  }
}

}  // namespace

void NCHW8cDepthwiseAvx512(const NCHW8cConvArgs& a, int64_t b0, int64_t b1) {
  const bool s2 = a.stride == 2;
  if (a.kernel_h == 5) {
    s2 ? DepthwiseKS<5, 2>(a, b0, b1) : DepthwiseKS<5, 1>(a, b0, b1);
  } else if (a.kernel_h == 1) {  // a per-channel scale and shift (densenet's pre-activation)
    s2 ? DepthwiseKS<1, 2>(a, b0, b1) : DepthwiseKS<1, 1>(a, b0, b1);
  } else {
    s2 ? DepthwiseKS<3, 2>(a, b0, b1) : DepthwiseKS<3, 1>(a, b0, b1);
  }
}
#endif
}  // namespace kiln::cpu
