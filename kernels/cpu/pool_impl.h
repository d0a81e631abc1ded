// Max/average pooling and global pooling, written once over the simd.h vectors and
// instantiated per ISA (pool_<isa>.cc). Vectorised along output columns; borders use lane
// masks (padding lanes read as the lowest float for max, zero for average) so nothing outside
// an input row is read. Taps are combined in window order, so results equal the reference.
#pragma once

#include <cfloat>

#include "kernels/cpu/simd.h"
#include "kernels/cpu/ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

inline int PoolClamp(int64_t v, int64_t lo, int64_t hi) {
  return static_cast<int>(v < lo ? lo : (v > hi ? hi : v));
}

constexpr int kPoolMaxKernelW = 7;

// Taps of a window starting at `start` that fall in [lo, hi) (padding counted or not).
inline int64_t TapsIn(int64_t start, int64_t k, int64_t lo, int64_t hi) {
  const int64_t a = start > lo ? start : lo, b = start + k < hi ? start + k : hi;
  return b > a ? b - a : 0;
}

template <typename V, bool kMax>
void PoolPlanes(const PoolParams& p, const float* x, float* y, int64_t planes) {
  using T = typename V::T;
  using M = typename V::MaskT;
  constexpr int N = V::N;
  const int kh = static_cast<int>(p.kernel_h), kw = static_cast<int>(p.kernel_w);
  const int sw = static_cast<int>(p.stride_w);
  const T fill = kMax ? V::Set1(-FLT_MAX) : V::Zero();
  // Average divisors: separable, rows x columns.
  float col_count[kPoolMaxWidth];
  if (!kMax) {
    for (int64_t ox = 0; ox < p.out_w; ++ox) {
      const int64_t s = ox * sw - p.pad_left;
      col_count[ox] =
          static_cast<float>(p.count_include_pad ? TapsIn(s, kw, -p.pad_left, p.in_w + p.pad_right)
                                                 : TapsIn(s, kw, 0, p.in_w));
    }
  }
  const int64_t ox_lo = (p.pad_left + sw - 1) / sw;
  const int64_t last_ok = p.in_w - 1 + p.pad_left - (kw - 1) - (sw == 2 ? 1 : 0);
  const int64_t max_start = last_ok >= 0 ? last_ok / sw - (N - 1) : -1;
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * in_plane;
    float* yc = y + c * out_plane;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const int64_t iy0 = oy * p.stride_h - p.pad_top;
      const int ky0 = PoolClamp(-iy0, 0, kh), ky1 = PoolClamp(p.in_h - iy0, 0, kh);
      const float row_count = static_cast<float>(
          p.count_include_pad ? TapsIn(iy0, kh, -p.pad_top, p.in_h + p.pad_bottom)
                              : TapsIn(iy0, kh, 0, p.in_h));
      for (int64_t ox = 0; ox < p.out_w;) {
        const int64_t ix0 = ox * sw - p.pad_left;
        const bool inside = ox >= ox_lo && ox <= max_start && ox + N <= p.out_w;
        const int n = inside ? N : PoolClamp(p.out_w - ox, 1, N);
        M m0[kPoolMaxKernelW], m1[kPoolMaxKernelW];
        if (!inside) {
          for (int kx = 0; kx < kw; kx += sw) {
            const int64_t c0 = ix0 + kx;
            if (sw == 1) {
              m0[kx] = V::MakeRangeMask(PoolClamp(-c0, 0, N), PoolClamp(p.in_w - c0, 0, n));
            } else {
              const int lo = PoolClamp(-c0, 0, 2 * N), hi = PoolClamp(p.in_w - c0, 0, 2 * n);
              m0[kx] = V::MakeRangeMask(lo, hi);
              m1[kx] = V::MakeRangeMask2(lo, hi);
            }
          }
        }
        T acc = fill;
        if (kMax && sw == 2) {
          // Max is order-free: reduce each raw 2N-column span over the window rows first,
          // then split it into even / odd columns once per tap pair (the permutes, on one
          // port, dominated: one pair per row and tap pair before).
          for (int kx = 0; kx < kw; kx += 2) {
            T a = fill, b = fill;
            for (int ky = ky0; ky < ky1; ++ky) {
              const float* row = xc + (iy0 + ky) * p.in_w + ix0 + kx;
              a = V::Max(a, inside ? V::Load(row) : V::LoadMaskedOr(row, m0[kx], fill));
              b = V::Max(b, inside ? V::Load(row + N) : V::LoadMaskedOr(row + N, m1[kx], fill));
            }
            T v0, v1;
            V::Deinterleave(a, b, &v0, &v1);
            acc = V::Max(acc, v0);
            if (kx + 1 < kw) acc = V::Max(acc, v1);
          }
        }
        for (int ky = ky0; ky < (kMax && sw == 2 ? ky0 : ky1); ++ky) {
          const float* row = xc + (iy0 + ky) * p.in_w + ix0;
          for (int kx = 0; kx < kw; kx += sw) {
            T v0, v1;
            if (sw == 1) {
              v0 = inside ? V::Load(row + kx) : V::LoadMaskedOr(row + kx, m0[kx], fill);
            } else {
              const T a = inside ? V::Load(row + kx) : V::LoadMaskedOr(row + kx, m0[kx], fill);
              const T b =
                  inside ? V::Load(row + kx + N) : V::LoadMaskedOr(row + kx + N, m1[kx], fill);
              V::Deinterleave(a, b, &v0, &v1);
            }
            // Max keeps the running value when the tap is NaN (the reference's v > best).
            acc = kMax ? V::Max(acc, v0) : V::Add(acc, v0);
            if (sw == 2 && kx + 1 < kw) acc = kMax ? V::Max(acc, v1) : V::Add(acc, v1);
          }
        }
        if (!kMax) {
          const T cnt = V::Mul(V::Set1(row_count), n == N ? V::Load(col_count + ox)
                                                          : V::LoadPartial(col_count + ox, n));
          // An empty window (count 0) averages to 0, as in the reference.
          acc = V::Div(acc, V::Max(cnt, V::Set1(1.f)));
        }
        if (n == N) {
          V::Store(yc + oy * p.out_w + ox, acc);
        } else {
          V::StorePartial(yc + oy * p.out_w + ox, acc, n);
        }
        ox += n;
      }
    }
  }
}

template <typename V>
void Pool(const PoolParams& p, const float* x, float* y, int64_t planes) {
  if (p.is_max) {
    PoolPlanes<V, true>(p, x, y, planes);
  } else {
    PoolPlanes<V, false>(p, x, y, planes);
  }
}

// Global pooling: four vector accumulators per plane, reduced at the end. The sum order
// differs from the reference's sequential sum (results agree to rounding); max is exact.
template <typename V>
void GlobalPool(const float* x, float* y, int64_t planes, int64_t size, bool is_max) {
  using T = typename V::T;
  constexpr int N = V::N;
  const T init = is_max ? V::Set1(-FLT_MAX) : V::Zero();
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * size;
    T a0 = init, a1 = init, a2 = init, a3 = init;
    int64_t i = 0;
    for (; i + 4 * N <= size; i += 4 * N) {
      if (is_max) {
        a0 = V::Max(a0, V::Load(xc + i));
        a1 = V::Max(a1, V::Load(xc + i + N));
        a2 = V::Max(a2, V::Load(xc + i + 2 * N));
        a3 = V::Max(a3, V::Load(xc + i + 3 * N));
      } else {
        a0 = V::Add(a0, V::Load(xc + i));
        a1 = V::Add(a1, V::Load(xc + i + N));
        a2 = V::Add(a2, V::Load(xc + i + 2 * N));
        a3 = V::Add(a3, V::Load(xc + i + 3 * N));
      }
    }
    for (; i < size; i += N) {
      const int n = size - i < N ? static_cast<int>(size - i) : N;
      const T v = V::LoadMaskedOr(xc + i, V::MakeMask(n), init);
      a0 = is_max ? V::Max(a0, v) : V::Add(a0, v);
    }
    if (is_max) {
      y[c] = V::ReduceMax(V::Max(V::Max(a0, a1), V::Max(a2, a3)));
    } else {
      y[c] = V::ReduceAdd(V::Add(V::Add(a0, a1), V::Add(a2, a3))) / static_cast<float>(size);
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
