// AVX-512 micro-kernels of the NCHW8c convolutions (conv_nchw8c.h). The layout stays 8 wide
// (one format for AVX2 and AVX-512 targets, no 16-channel padding of 24-channel layers); a zmm
// holds two 8-channel groups: for 1x1 layers and stems the two blocks of one 16-float Block16O
// weight row (one pixel, 16 output channels), for depthwise layers two pixels of one block.
#include <immintrin.h>

#include <algorithm>

#include "kernels/cpu/activation_simd.h"
#include "kernels/cpu/simd.h"
#include "kernels/cpu/ukernels.h"

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
// rows (16 floats each, read in place from Block16O) and PT broadcasts. `pairs_full`: how many
// of the QT pairs have both blocks (all but possibly the layer's last).
template <int QT, int PT>
inline void PointwiseTile(const float* x, int64_t plane, int64_t in_c, const float* w,
                          const float* bias, const float* residual, float* y, int full_pairs,
                          const Clamp512& clamp) {
  __m512 acc[QT][PT];
  for (int q = 0; q < QT; ++q) {
    const __m512 b = PairBias(bias ? bias + q * 16 : nullptr, q < full_pairs);
    for (int p = 0; p < PT; ++p) acc[q][p] = b;
  }
  const int64_t wq = in_c * 16;  // floats between two pairs' weights
  for (int64_t ib = 0; ib < in_c / B; ++ib) {
    const float* xb = x + ib * plane * B;
#pragma GCC unroll 8
    for (int j = 0; j < 8; ++j) {
      __m512 wv[QT];
      for (int q = 0; q < QT; ++q) wv[q] = _mm512_loadu_ps(w + q * wq);
      w += 16;
      for (int p = 0; p < PT; ++p) {
        const __m512 xv = _mm512_set1_ps(xb[p * B + j]);
        for (int q = 0; q < QT; ++q) acc[q][p] = _mm512_fmadd_ps(wv[q], xv, acc[q][p]);
      }
    }
  }
  const int64_t bs = plane * B;
  for (int q = 0; q < QT; ++q) {
    const bool two = q < full_pairs;
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

// QT pairs of output blocks x PT pixels of one output row, every tap of every input channel
// (x: the zero-padded plain image).
template <int QT, int PT>
inline void DirectTile(const NCHW8cConvArgs& a, const float* x, const float* w, const float* bias,
                       float* y, int64_t plane, int full_pairs, const Clamp512& clamp) {
  __m512 acc[QT][PT];
  for (int q = 0; q < QT; ++q) {
    const __m512 b = PairBias(bias ? bias + q * 16 : nullptr, q < full_pairs);
    for (int p = 0; p < PT; ++p) acc[q][p] = b;
  }
  const int64_t s = a.stride, taps = a.kernel_h * a.kernel_w, wq = a.in_c * taps * 16;
  for (int64_t c = 0; c < a.in_c; ++c) {
    for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
      const float* row = x + (c * a.in_h + ky) * a.in_w;
      for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
        __m512 wv[QT];
        for (int q = 0; q < QT; ++q) wv[q] = _mm512_loadu_ps(w + q * wq);
        w += 16;
        for (int p = 0; p < PT; ++p) {
          const __m512 xv = _mm512_set1_ps(row[p * s + kx]);
          for (int q = 0; q < QT; ++q) acc[q][p] = _mm512_fmadd_ps(wv[q], xv, acc[q][p]);
        }
      }
    }
  }
  const int64_t bs = plane * B;
  for (int q = 0; q < QT; ++q) {
    for (int p = 0; p < PT; ++p) {
      StorePair(y + 2 * q * bs + p * B, bs, q < full_pairs, clamp(acc[q][p]));
    }
  }
}

template <int QT>
void DirectRow(const NCHW8cConvArgs& a, int64_t q0, int64_t oy, const Clamp512& clamp) {
  const int64_t plane = a.out_h * a.out_w, taps = a.kernel_h * a.kernel_w;
  const int64_t out_blocks = a.out_c / B;
  const float* w = a.w + q0 * a.in_c * taps * 16;
  const float* bias = a.bias ? a.bias + q0 * 16 : nullptr;
  const float* x = a.x + oy * a.stride * a.in_w;
  float* y = a.y + (2 * q0 * plane + oy * a.out_w) * B;
  const int full = static_cast<int>(std::min<int64_t>(QT, out_blocks / 2 - q0));
  const int64_t s = a.stride;
  int64_t ox = 0;
  for (; ox + 12 <= a.out_w; ox += 12) {
    DirectTile<QT, 12>(a, x + ox * s, w, bias, y + ox * B, plane, full, clamp);
  }
  for (; ox + 4 <= a.out_w; ox += 4) {
    DirectTile<QT, 4>(a, x + ox * s, w, bias, y + ox * B, plane, full, clamp);
  }
  for (; ox < a.out_w; ++ox) {
    DirectTile<QT, 1>(a, x + ox * s, w, bias, y + ox * B, plane, full, clamp);
  }
  const int64_t blocks = std::min<int64_t>(2 * QT, out_blocks - 2 * q0);
  for (int64_t o = 0; o < blocks; ++o) clamp.Finish(y + o * plane * B, a.out_w * B);
}

}  // namespace

void NCHW8cDirectAvx512(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1) {
  const Clamp512 clamp(a.act);
  const int64_t pairs = (a.out_c / B + 1) / 2;
  for (int64_t oy = oy0; oy < oy1; ++oy) {
    int64_t q = 0;
    for (; q + 2 <= pairs; q += 2) DirectRow<2>(a, q, oy, clamp);
    if (q < pairs) DirectRow<1>(a, q, oy, clamp);
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
  } else {
    s2 ? DepthwiseKS<3, 2>(a, b0, b1) : DepthwiseKS<3, 1>(a, b0, b1);
  }
}
#endif
}  // namespace kiln::cpu
