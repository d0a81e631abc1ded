// The depthwise convolution plane kernel, written once over the simd.h vectors and
// instantiated per ISA (dwconv_<isa>.cc). Vectorised along output columns, four output rows at
// a time: four independent FMA chains (one chain alone would be bound by the FMA latency)
// sharing each column block's lane masks. Rows above or below the input read a zero row, and
// columns outside it are masked off, so borders (padding, row ends, 7x7 maps narrower than a
// vector) need no scalar path and nothing outside an input row is ever read.
#pragma once

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/tables/flat_plane_masks.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

inline int ClampInt(int64_t v, int64_t lo, int64_t hi) {
  return static_cast<int>(v < lo ? lo : (v > hi ? hi : v));
}

constexpr int kMaxDwKernel = 7;  // windows up to 7x7
constexpr int kDwRows = 4;       // output rows per block
// A row of zeros standing in for input rows in the vertical padding; a row pointer is
// kDwZeros + kDwZeroPad, so column offsets down to -kDwZeroPad stay inside it.
constexpr int kDwZeroPad = 64;
constexpr int kDwZeroFloats = 4096;
alignas(64) const float kDwZeros[kDwZeroFloats] = {};

// Lane masks of one column block: per tap (stride 1) or per raw load pair (stride 2).
template <typename V>
struct DwMasks {
  typename V::MaskT m0[kMaxDwKernel], m1[kMaxDwKernel];
};

// kDwRows output vectors of columns [ox, ox + n): rows[r][ky] is the input row of tap ky for
// output row r (or the zero row), ix0 the input column of lane 0 and tap 0. KH/KW/SW: window
// and horizontal stride when known at compile time (0: from p; then loops do not unroll).
template <typename V, int KH, int KW, int SW, bool kMasked>
inline void DwVectors(const DwConvParams& p, const float* const (*rows)[kMaxDwKernel], int64_t ix0,
                      const typename V::T* wv, typename V::T bias, const DwMasks<V>& m,
                      typename V::T (&acc)[kDwRows]) {
  using T = typename V::T;
  constexpr int N = V::N;
  const int kh = KH > 0 ? KH : static_cast<int>(p.kernel_h);
  const int kw = KW > 0 ? KW : static_cast<int>(p.kernel_w);
  const int sw = SW > 0 ? SW : static_cast<int>(p.stride_w);
#pragma GCC unroll 4
  for (int r = 0; r < kDwRows; ++r) acc[r] = bias;
#pragma GCC unroll 7
  for (int ky = 0; ky < kh; ++ky) {
    if (sw == 1) {
#pragma GCC unroll 7
      for (int kx = 0; kx < kw; ++kx) {
        const T w = wv[ky * kw + kx];
#pragma GCC unroll 4
        for (int r = 0; r < kDwRows; ++r) {
          const float* src = rows[r][ky] + ix0 + kx;
          acc[r] = V::Fma(w, kMasked ? V::LoadMasked(src, m.m0[kx]) : V::Load(src), acc[r]);
        }
      }
    } else {
      // Lane j of tap kx reads column ix0 + 2j + kx: raw loads at even tap offsets give the
      // even tap from their even lanes and the next (odd) tap from their odd lanes.
#pragma GCC unroll 4
      for (int kx = 0; kx < kw; kx += 2) {
        const T w0 = wv[ky * kw + kx];
        const T w1 = kx + 1 < kw ? wv[ky * kw + kx + 1] : w0;
#pragma GCC unroll 4
        for (int r = 0; r < kDwRows; ++r) {
          const float* src = rows[r][ky] + ix0 + kx;
          T even, odd;
          if (kMasked) {
            V::LoadDeinterleaveMasked(src, m.m0[kx], m.m1[kx], &even, &odd);
          } else {
            V::Deinterleave(V::Load(src), V::Load(src + N), &even, &odd);
          }
          acc[r] = V::Fma(w0, even, acc[r]);
          if (kx + 1 < kw) acc[r] = V::Fma(w1, odd, acc[r]);
        }
      }
    }
  }
}

template <typename V, int KH, int KW, int SW>
void DwConvPlaneT(const DwConvParams& p, const float* x, const float* w, float bias,
                  const float* residual, float* y) {
  using T = typename V::T;
  constexpr int N = V::N;
  const int kh = static_cast<int>(p.kernel_h), kw = static_cast<int>(p.kernel_w);
  const int sw = static_cast<int>(p.stride_w);
  T wv[kMaxDwKernel * kMaxDwKernel];
  for (int i = 0; i < kh * kw; ++i) wv[i] = V::Set1(w[i]);
  const T bv = V::Set1(bias);
  const float* zero_row = kDwZeros + kDwZeroPad;
  // Whole vectors from ox with every column inside the row take the unmasked path: the first
  // column read is ox * sw - pad_left >= 0; the last, (ox + N - 1) * sw - pad_left + kw - 1
  // (+1 for the odd lanes of a stride-2 raw load), is < in_w.
  const int64_t ox_lo = (p.pad_left + sw - 1) / sw;
  const int64_t last_ok = p.in_w - 1 + p.pad_left - (kw - 1) - (sw == 2 ? 1 : 0);
  const int64_t max_start = last_ok >= 0 ? last_ok / sw - (N - 1) : -1;
  for (int64_t oy = 0; oy < p.out_h; oy += kDwRows) {
    const int rows_here = ClampInt(p.out_h - oy, 0, kDwRows);
    const float* rows[kDwRows][kMaxDwKernel];
    for (int r = 0; r < kDwRows; ++r) {
      for (int ky = 0; ky < kh; ++ky) {
        const int64_t iy = (oy + r) * p.stride_h - p.pad_top + ky;
        rows[r][ky] = r < rows_here && iy >= 0 && iy < p.in_h ? x + iy * p.in_w : zero_row;
      }
    }
    // A layer's input is often cold (a 112x112 expansion's output is 4.8 MB), and the rows of a
    // block are read a column step at a time, which the hardware prefetchers do not follow: the
    // next block's new input rows (past the plane's end, the next plane's first: planes are
    // contiguous and a prefetch never faults) are requested a line per column step. 96 x 112
    // -> 56 stride 2 from memory 1.15-1.58 -> 0.69-0.84 ms (Zen 3, one thread, caches flushed).
    const int64_t next_iy = (oy + kDwRows - 1) * p.stride_h - p.pad_top + kh;
    const float* next_rows = x + next_iy * p.in_w;
    const int next_count = static_cast<int>(kDwRows * p.stride_h);
    for (int64_t ox = 0; ox < p.out_w;) {
      const int64_t ix0 = ox * sw - p.pad_left;
      for (int k = 0; k < next_count; ++k) {
        __builtin_prefetch(next_rows + k * p.in_w + ix0 + N * sw, 0, 3);
      }
      const bool inside = ox >= ox_lo && ox <= max_start && ox + N <= p.out_w;
      const int n = inside ? N : ClampInt(p.out_w - ox, 1, N);
      T acc[kDwRows];
      DwMasks<V> masks;
      if (inside) {
        DwVectors<V, KH, KW, SW, false>(p, rows, ix0, wv, bv, masks, acc);
      } else {
        for (int kx = 0; kx < kw; kx += sw) {
          const int64_t c0 = ix0 + kx;
          if (sw == 1) {
            masks.m0[kx] = V::MakeRangeMask(ClampInt(-c0, 0, N), ClampInt(p.in_w - c0, 0, n));
          } else {
            const int lo = ClampInt(-c0, 0, 2 * N), hi = ClampInt(p.in_w - c0, 0, 2 * n);
            masks.m0[kx] = V::MakeRangeMask(lo, hi);
            masks.m1[kx] = V::MakeRangeMask2(lo, hi);
          }
        }
        DwVectors<V, KH, KW, SW, true>(p, rows, ix0, wv, bv, masks, acc);
      }
#pragma GCC unroll 4
      for (int r = 0; r < kDwRows; ++r) {
        if (r >= rows_here) break;
        const int64_t o = (oy + r) * p.out_w + ox;
        // The residual is read right before its element is written: it may share y's buffer.
        if (n == N) {
          V::Store(y + o, residual ? V::Add(acc[r], V::Load(residual + o)) : acc[r]);
        } else {
          V::StorePartial(y + o,
                          residual ? V::Add(acc[r], V::LoadPartial(residual + o, n)) : acc[r], n);
        }
      }
      ox += n;
    }
  }
  // The activation over the finished plane (still in L1/L2).
  ActivateArray<V>(y, p.out_h * p.out_w, p.act);
}

// Small stride-1 "same" planes (the map no wider than a few vectors, e.g. 7x7 or 14x14): the
// plane is one flat vector of out_h * out_w outputs, input and output rows have the same
// width, so tap (ky, kx) of output i reads input i + (ky - pad_top) * w + (kx - pad_left),
// masked where the tap falls outside. The masks depend only on the geometry, so they are made
// once per call and reused by every channel; four vectors run as independent FMA chains.
constexpr int kDwFlatVectors = 16;  // at most this many vectors per plane
constexpr int kDwFlatTaps = 25;     // windows up to 5x5

inline bool DwFlatFits(const DwConvParams& p, int n) {
  return p.stride_h == 1 && p.stride_w == 1 && p.in_w == p.out_w && p.in_h == p.out_h &&
         p.kernel_h * p.kernel_w <= kDwFlatTaps && p.out_h * p.out_w <= kDwFlatVectors * n &&
         p.out_w < 4 * n;
}

template <typename V>
void DwConvFlat(const DwConvParams& p, const float* x, const float* w, const float* bias,
                const float* residual, float* y, int64_t channels) {
  using T = typename V::T;
  constexpr int N = V::N;
  const int taps = static_cast<int>(p.kernel_h * p.kernel_w);
  const int64_t plane = p.out_h * p.out_w;
  const int nvec = static_cast<int>((plane + N - 1) / N);
  const int groups = (nvec + 3) / 4;
  typename V::MaskT masks[kDwFlatVectors][kDwFlatTaps];
  int64_t offset[kDwFlatTaps];
  FlatPlaneMasks<V, kDwFlatVectors, kDwFlatTaps>(p, plane, groups * 4, masks, offset);
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * plane;
    float* yc = y + c * plane;
    T wv[kDwFlatTaps];
    for (int t = 0; t < taps; ++t) wv[t] = V::Set1(w[c * taps + t]);
    const T bv = V::Set1(bias ? bias[c] : 0.f);
    for (int g = 0; g < groups; ++g) {
      T acc[4];
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) acc[v] = bv;
      for (int t = 0; t < taps; ++t) {
#pragma GCC unroll 4
        for (int v = 0; v < 4; ++v) {
          const int vi = g * 4 + v;
          acc[v] = V::Fma(wv[t], V::LoadMasked(xc + vi * N + offset[t], masks[vi][t]), acc[v]);
        }
      }
#pragma GCC unroll 4
      for (int v = 0; v < 4; ++v) {
        const int64_t i0 = static_cast<int64_t>(g * 4 + v) * N;
        if (i0 >= plane) break;
        // The residual is read right before its element is written (it may share y).
        const float* rc = residual ? residual + c * plane + i0 : nullptr;
        if (i0 + N <= plane) {
          V::Store(yc + i0, rc ? V::Add(acc[v], V::Load(rc)) : acc[v]);
        } else {
          const int n = static_cast<int>(plane - i0);
          V::StorePartial(yc + i0, rc ? V::Add(acc[v], V::LoadPartial(rc, n)) : acc[v], n);
        }
      }
    }
  }
  // The activation over all the planes at once.
  ActivateArray<V>(y, channels * plane, p.act);
}

template <typename V>
void DwConvPlane(const DwConvParams& p, const float* x, const float* w, float bias,
                 const float* residual, float* y) {
  static_assert(kDwZeroPad + kDwConvMaxWidth + 2 * 16 + kMaxDwKernel <= kDwZeroFloats);
  const bool square = p.kernel_h == p.kernel_w;
  if (square && p.kernel_w == 3 && p.stride_w == 1) {
    return DwConvPlaneT<V, 3, 3, 1>(p, x, w, bias, residual, y);
  }
  if (square && p.kernel_w == 3 && p.stride_w == 2) {
    return DwConvPlaneT<V, 3, 3, 2>(p, x, w, bias, residual, y);
  }
  if (square && p.kernel_w == 5 && p.stride_w == 1) {
    return DwConvPlaneT<V, 5, 5, 1>(p, x, w, bias, residual, y);
  }
  if (square && p.kernel_w == 5 && p.stride_w == 2) {
    return DwConvPlaneT<V, 5, 5, 2>(p, x, w, bias, residual, y);
  }
  DwConvPlaneT<V, 0, 0, 0>(p, x, w, bias, residual, y);
}

// 1x1 windows, stride 1, no padding: a per-channel w * x + b (what the compiler makes of a
// BatchNormalization before an activation), one pass over each plane with a relu / clip
// applied per vector; the transcendental activations go over the plane afterwards.
inline bool DwPointwise(const DwConvParams& p) {
  return p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
         p.pad_top == 0 && p.pad_left == 0 && p.in_h == p.out_h && p.in_w == p.out_w;
}

template <typename V>
void DwConvPointwise(const DwConvParams& p, const float* x, const float* w, const float* bias,
                     const float* residual, float* y, int64_t channels) {
  using T = typename V::T;
  constexpr int N = V::N;
  const int64_t plane = p.out_h * p.out_w;
  const bool inline_act = IsInlineActivation(p.act.kind);
  for (int64_t c = 0; c < channels; ++c) {
    const float* xc = x + c * plane;
    const float* rc = residual ? residual + c * plane : nullptr;
    float* yc = y + c * plane;
    const T wv = V::Set1(w[c]), bv = V::Set1(bias ? bias[c] : 0.f);
    // The residual is read right before its element is written (it may share y).
    auto one = [&](T v, const T* r) {
      v = V::Fma(wv, v, bv);
      if (r) v = V::Add(v, *r);
      return inline_act ? Activate<V>(p.act, v) : v;
    };
    int64_t i = 0;
    for (; i + 2 * N <= plane; i += 2 * N) {
      const T r0 = rc ? V::Load(rc + i) : V::Zero(), r1 = rc ? V::Load(rc + i + N) : V::Zero();
      const T a = one(V::Load(xc + i), rc ? &r0 : nullptr);
      const T b = one(V::Load(xc + i + N), rc ? &r1 : nullptr);
      V::Store(yc + i, a);
      V::Store(yc + i + N, b);
    }
    for (; i < plane; i += N) {
      const int n = plane - i < N ? static_cast<int>(plane - i) : N;
      const T r = rc ? V::LoadPartial(rc + i, n) : V::Zero();
      V::StorePartial(yc + i, one(V::LoadPartial(xc + i, n), rc ? &r : nullptr), n);
    }
    if (!inline_act) ActivateArray<V>(yc, plane, p.act);
  }
}

template <typename V>
void DwConvChannels(const DwConvParams& p, const float* x, const float* w, const float* bias,
                    const float* residual, float* y, int64_t channels) {
  if (DwPointwise(p)) return DwConvPointwise<V>(p, x, w, bias, residual, y, channels);
  if (DwFlatFits(p, V::N)) return DwConvFlat<V>(p, x, w, bias, residual, y, channels);
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t taps = p.kernel_h * p.kernel_w;
  for (int64_t c = 0; c < channels; ++c) {
    DwConvPlane<V>(p, x + c * in_plane, w + c * taps, bias ? bias[c] : 0.f,
                   residual ? residual + c * out_plane : nullptr, y + c * out_plane);
  }
}

}  // namespace
}  // namespace kiln::cpu
