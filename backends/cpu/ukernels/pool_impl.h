// Max/average pooling and global pooling, written once over the simd.h vectors and
// instantiated per ISA (pool_<isa>.cc). Vectorised along output columns; borders use lane
// masks (padding lanes read as the lowest float for max, zero for average) so nothing outside
// an input row is read. Taps are combined in window order, so results equal the reference (the
// stride-2 max pools reduce rows first: see MaxPoolStride2).
#pragma once

#include <algorithm>
#include <cfloat>

#include "backends/cpu/tables/flat_plane_masks.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

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

// The window rows of output row oy: input rows iy0 + [ky0, ky1) lie inside the input, and
// `counted` rows count towards an average (the padding's too with count_include_pad).
struct PoolRows {
  int64_t iy0;
  int ky0, ky1;
  int64_t counted;
};
inline PoolRows RowsOf(const PoolParams& p, int64_t oy, int kh) {
  const int64_t iy0 = oy * p.stride_h - p.pad_top;
  return {iy0, PoolClamp(-iy0, 0, kh), PoolClamp(p.in_h - iy0, 0, kh),
          p.count_include_pad ? TapsIn(iy0, kh, -p.pad_top, p.in_h + p.pad_bottom)
                              : TapsIn(iy0, kh, 0, p.in_h)};
}

// KW / SW nonzero: the window width and column stride as constants (the common 3x3 and 2x2
// windows), so the tap loop unrolls; 0: read from p.
template <typename V, bool kMax, int KW = 0, int SW = 0>
void PoolPlanes(const PoolParams& p, const float* x, float* y, int64_t planes) {
  using T = typename V::T;
  using M = typename V::MaskT;
  constexpr int N = V::N;
  const int kh = static_cast<int>(p.kernel_h);
  const int kw = KW ? KW : static_cast<int>(p.kernel_w);
  const int sw = SW ? SW : static_cast<int>(p.stride_w);
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
  // Border lane masks, set per vector where a window leaves the row (read only there); made
  // once here, zeroed, so the compiler sees them set on every path.
  M m0[kPoolMaxKernelW] = {}, m1[kPoolMaxKernelW] = {};
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * in_plane;
    float* yc = y + c * out_plane;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const PoolRows w = RowsOf(p, oy, kh);
      const int64_t iy0 = w.iy0;
      const int ky0 = w.ky0, ky1 = w.ky1;
      const float row_count = static_cast<float>(w.counted);
      for (int64_t ox = 0; ox < p.out_w;) {
        const int64_t ix0 = ox * sw - p.pad_left;
        const bool inside = ox >= ox_lo && ox <= max_start && ox + N <= p.out_w;
        const int n = inside ? N : PoolClamp(p.out_w - ox, 1, N);
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
        for (int ky = ky0; ky < ky1; ++ky) {
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

// Stride-1 "same" max pooling on small planes (the 3x3 pools of inception blocks on 7x7-28x28
// maps): the plane is one flat run of vectors, and tap (ky, kx) of output i reads input
// i + (ky - pad_top) * w + kx - pad_left under a lane mask that depends only on the geometry,
// made once per call (FlatPlaneMasks). Taps in window order, as the reference.
constexpr int kPoolFlatVectors = 64;
constexpr int kPoolFlatTaps = 9;

inline bool PoolFlatFits(const PoolParams& p, int n) {
  return p.is_max && p.stride_h == 1 && p.stride_w == 1 && p.in_h == p.out_h && p.in_w == p.out_w &&
         p.kernel_h * p.kernel_w <= kPoolFlatTaps && p.out_h * p.out_w <= kPoolFlatVectors * n;
}

// A flat plane's vectors and every tap's lane masks and offset (FlatPlaneMasks), made once
// per call.
template <typename V>
struct FlatPoolPlane {
  explicit FlatPoolPlane(const PoolParams& p)
      : plane(p.out_h * p.out_w), nvec(static_cast<int>((plane + V::N - 1) / V::N)) {
    FlatPlaneMasks<V, kPoolFlatVectors, kPoolFlatTaps>(p, plane, nvec, masks, offset);
  }
  int64_t plane;
  int nvec;
  typename V::MaskT masks[kPoolFlatVectors][kPoolFlatTaps];
  int64_t offset[kPoolFlatTaps];
};

// Vector v of a flat plane of `plane` floats (the last one partly).
template <typename V>
inline void StoreFlatVector(float* y, int v, int64_t plane, typename V::T acc) {
  const int64_t i0 = static_cast<int64_t>(v) * V::N;
  if (i0 + V::N <= plane) {
    V::Store(y + i0, acc);
  } else {
    V::StorePartial(y + i0, acc, static_cast<int>(plane - i0));
  }
}

template <typename V>
void MaxPoolFlat(const PoolParams& p, const float* x, float* y, int64_t planes) {
  using T = typename V::T;
  constexpr int N = V::N;
  const int taps = static_cast<int>(p.kernel_h * p.kernel_w);
  const FlatPoolPlane<V> f(p);
  const int64_t plane = f.plane;
  const int nvec = f.nvec;
  const auto& masks = f.masks;
  const auto& offset = f.offset;
  const T fill = V::Set1(-FLT_MAX);
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * plane;
    float* yc = y + c * plane;
    for (int v = 0; v < nvec; ++v) {
      T acc = fill;
      for (int t = 0; t < taps; ++t) {
        // Max keeps the running value when the tap is NaN (the reference's v > best).
        acc = V::Max(acc, V::LoadMaskedOr(xc + v * N + offset[t], masks[v][t], fill));
      }
      StoreFlatVector<V>(yc, v, plane, acc);
    }
  }
}

// The inception blocks' 3x3 stride-1 "same" max pools (pads 1) on flat planes, separably:
// per vector the maxima of the rows above, at and below (three masked loads), then of the
// column maxima to the left, here and to the right, the neighbours' lanes shifted in from the
// vectors before and after (kept in registers). Six taps' masks instead of nine loads and
// maxes per vector. Same result as the reference (see MaxPoolStride2 on the order).
inline bool MaxPool3x3SameFits(const PoolParams& p, int n) {
  return PoolFlatFits(p, n) && p.kernel_h == 3 && p.kernel_w == 3 && p.pad_top == 1 &&
         p.pad_left == 1 && p.pad_bottom == 1 && p.pad_right == 1;
}

template <typename V>
void MaxPool3x3Same(const PoolParams& p, const float* x, float* y, int64_t planes) {
  using T = typename V::T;
  constexpr int N = V::N;
  const int64_t w = p.in_w;
  // Taps 1 / 4 / 7 (rows above / at / below) and 3 / 5 (left / right): their lanes inside.
  const FlatPoolPlane<V> f(p);
  const int64_t plane = f.plane;
  const int nvec = f.nvec;
  const auto& masks = f.masks;
  const T fill = V::Set1(-FLT_MAX);
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * plane;
    float* yc = y + c * plane;
    auto column = [&](int v) {
      const float* at = xc + v * N;
      T m = V::Max(fill, V::LoadMaskedOr(at - w, masks[v][1], fill));
      m = V::Max(m, V::LoadMaskedOr(at, masks[v][4], fill));
      return V::Max(m, V::LoadMaskedOr(at + w, masks[v][7], fill));
    };
    T prev = fill, cur = column(0);
    for (int v = 0; v < nvec; ++v) {
      const T next = v + 1 < nvec ? column(v + 1) : fill;
      T acc = V::Max(fill, V::Select(masks[v][3], V::ShiftInPrev(prev, cur), fill));
      acc = V::Max(acc, cur);
      acc = V::Max(acc, V::Select(masks[v][5], V::ShiftInNext(cur, next), fill));
      StoreFlatVector<V>(yc, v, plane, acc);
      prev = cur;
      cur = next;
    }
  }
}

// Horizontal stride 2, windows up to 3 columns wide (the stem, reduction and transition
// pools). Column vector j covers input columns [j * N - pad_left, +N); output vector i reads
// column vectors 2i, 2i + 1 and (3-wide windows) lane 0 of 2i + 2, its outputs from their even
// / odd lanes and the even lanes one element on (ShiftInNext). The vectors' lanes inside the
// row are the same on every row and made once per call (per-row index and mask arithmetic
// cost more than the loads on narrow planes), as is the last output vector's store mask.
// Column vectors past the last one any output reads are not loaded (a 14-wide row needs one
// where the pairs would read three).
inline bool PoolStride2Fits(const PoolParams& p) {
  return p.stride_w == 2 && p.kernel_w <= 3 && p.pad_left < p.kernel_w && p.out_w <= kPoolMaxWidth;
}

template <typename V>
struct Stride2Columns {
  using M = typename V::MaskT;
  static constexpr int N = V::N;
  Stride2Columns(const PoolParams& p, int kw)
      : out_vectors((p.out_w + N - 1) / N),
        used_vectors((2 * (p.out_w - 1) + kw + N - 1) / N),
        whole_vectors(p.out_w / N),
        tail_lanes(static_cast<int>(p.out_w - p.out_w / N * N)),
        inside_lo((p.pad_left + N - 1) / N),
        inside_hi(std::min<int64_t>(used_vectors, (p.in_w + p.pad_left) / N)) {
    for (int64_t j = 0; j < 2 * out_vectors + 1; ++j) {
      const int64_t col = j * N - p.pad_left;
      masks[j] = V::MakeRangeMask(PoolClamp(-col, 0, N), PoolClamp(p.in_w - col, 0, N));
    }
  }
  // Whether column vector j lies inside the row (its masks all on): a plain load then. On AVX2
  // a masked load and its blend with the fill cost more than the plain load, and much more
  // where the input comes from beyond the L2 (a stem pool reads what its conv wrote, 3 MB):
  // alone, 64 x 112x112 -> 56x56 1.41x warm / 1.99x cold, densenet's 2x2 average pools
  // 1.03-1.14x / 1.99x (Zen 3).
  bool Inside(int64_t j) const { return j >= inside_lo && j < inside_hi; }
  // Column vector j of the row whose column 0 (before the padding) is at `row`, `fill` in the
  // lanes outside it; the fill without a load past the used vectors.
  typename V::T Load(const float* row, int64_t j, typename V::T fill) const {
    if (Inside(j)) return V::Load(row + j * N);
    return j < used_vectors ? V::LoadMaskedOr(row + j * N, masks[j], fill) : fill;
  }
  void Store(float* y_row, int64_t i, typename V::T v) const {
    if (i < whole_vectors) {
      V::Store(y_row + i * N, v);
    } else {
      V::StorePartial(y_row + i * N, v, tail_lanes);
    }
  }
  int64_t out_vectors, used_vectors, whole_vectors;
  int tail_lanes;
  int64_t inside_lo, inside_hi;  // the column vectors [lo, hi) lie inside the row
  // On the stack, no allocation per call: out_w <= kPoolMaxWidth (PoolStride2Fits).
  M masks[2 * ((kPoolMaxWidth + N - 1) / N) + 1];
};

// Max pools: per output row, vectors of the window rows' column maxima, then each output takes
// its columns' lanes. All in registers: a row-max buffer read back at other offsets stalled on
// store forwarding. Every tap is a max, so the order does not change the result (NaN taps are
// skipped either way; of two equal zeros of opposite sign, the earliest column wins here, the
// earliest row in the reference). KW: the window width as a constant (3: the stem and
// reduction pools, unrolled with the 3-row windows), or 0 (read from p).
template <typename V, int KW>
void MaxPoolStride2(const PoolParams& p, const float* x, float* y, int64_t planes) {
  using T = typename V::T;
  const int kh = static_cast<int>(p.kernel_h);
  const int kw = KW ? KW : static_cast<int>(p.kernel_w);
  const T fill = V::Set1(-FLT_MAX);
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t in_w = p.in_w;
  const Stride2Columns<V> cols(p, kw);
  // The masks and the used count as locals for the loads below: read through `cols` (as the
  // average kernel does) the max kernel ran 2-9 % slower.
  const typename V::MaskT* masks = cols.masks;
  const int64_t used_vectors = cols.used_vectors;
  const int64_t inside_lo = cols.inside_lo, inside_hi = cols.inside_hi;
  constexpr int N = V::N;
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * in_plane;
    float* yc = y + c * out_plane;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const PoolRows w = RowsOf(p, oy, kh);
      const int rows = w.ky1 - w.ky0;
      // Input column 0 of the window's first row, where the column vectors are counted from.
      const float* r0 = xc + std::max<int64_t>(w.iy0 + w.ky0, 0) * in_w - p.pad_left;
      // The window rows' maximum at `at`, each row read by `load`. Max keeps its first operand
      // when the second is NaN: NaN taps are skipped.
      auto rows_max = [&](const float* at, auto load) {
        if (rows == 3) {
          const T acc = V::Max(fill, load(at));
          return V::Max(V::Max(acc, load(at + in_w)), load(at + 2 * in_w));
        }
        T acc = fill;
        for (int r = 0; r < rows; ++r) acc = V::Max(acc, load(at + r * in_w));
        return acc;
      };
      auto column_max = [&](int64_t j) {
        const float* at = r0 + j * N;
        // Plain loads inside the row (see Stride2Columns::Inside): in the models, the stem
        // pools of resnet18_rw, googlenet_rw and squeezenet 1.7-2.2x, the later ones 1.3-1.8x
        // (Zen 3).
        if (j >= inside_lo && j < inside_hi) {
          return rows_max(at, [](const float* q) { return V::Load(q); });
        }
        if (j >= used_vectors) return fill;
        const typename V::MaskT m = masks[j];
        return rows_max(at, [&](const float* q) { return V::LoadMaskedOr(q, m, fill); });
      };
      float* yr = yc + oy * p.out_w;
      T a = column_max(0);
      for (int64_t i = 0; i < cols.out_vectors; ++i) {
        const T b = column_max(2 * i + 1);
        T even, odd;
        V::Deinterleave(a, b, &even, &odd);
        T acc = V::Max(fill, even);
        if (kw > 1) acc = V::Max(acc, odd);
        a = column_max(2 * i + 2);
        // Column 2 of output k is column 0 of output k + 1; the last lane's is the first
        // column of the next pair.
        if (kw > 2) acc = V::Max(acc, V::ShiftInNext(even, a));
        cols.Store(yr, i, acc);
      }
    }
  }
}

// Average pools (densenet's 2x2 transitions): the taps added in window order, row by row and
// in each row column by column, from 0 as the reference (and PoolPlanes) do, padding lanes as
// +0; then divided by the taps counted, rows x columns. Where every count of the row is a
// power of two (2x2 windows: 4, and 2 or 1 at the edges), multiplied by its reciprocal
// instead: the same exactly rounded quotient, without a division (~16 cycles a vector here).
template <typename V, int KW>
void AvgPoolStride2(const PoolParams& p, const float* x, float* y, int64_t planes) {
  using T = typename V::T;
  constexpr int N = V::N;
  const int kh = static_cast<int>(p.kernel_h);
  const int kw = KW ? KW : static_cast<int>(p.kernel_w);
  const T zero = V::Zero();
  const int64_t in_plane = p.in_h * p.in_w, out_plane = p.out_h * p.out_w;
  const int64_t in_w = p.in_w;
  const Stride2Columns<V> cols(p, kw);
  float col_count[kPoolMaxWidth + N], col_inv[kPoolMaxWidth + N];
  auto pow2 = [](int64_t n) { return n > 0 && (n & (n - 1)) == 0; };
  bool cols_pow2 = true;
  for (int64_t ox = 0; ox < cols.out_vectors * N; ++ox) {
    const int64_t s = ox * 2 - p.pad_left;
    const int64_t n = ox >= p.out_w         ? 1
                      : p.count_include_pad ? TapsIn(s, kw, -p.pad_left, p.in_w + p.pad_right)
                                            : TapsIn(s, kw, 0, p.in_w);
    cols_pow2 = cols_pow2 && pow2(n);
    col_count[ox] = static_cast<float>(n);
    col_inv[ox] = n > 0 ? 1.f / static_cast<float>(n) : 0.f;
  }
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * in_plane;
    float* yc = y + c * out_plane;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const PoolRows w = RowsOf(p, oy, kh);
      const int64_t rn = w.counted;
      const T row_count = V::Set1(static_cast<float>(rn));
      const bool multiply = cols_pow2 && pow2(rn);
      const T row_inv = V::Set1(rn > 0 ? 1.f / static_cast<float>(rn) : 0.f);
      float* yr = yc + oy * p.out_w;
      for (int64_t i = 0; i < cols.out_vectors; ++i) {
        T acc = zero;
        for (int ky = w.ky0; ky < w.ky1; ++ky) {
          const float* row = xc + (w.iy0 + ky) * in_w - p.pad_left;
          T even, odd;
          V::Deinterleave(cols.Load(row, 2 * i, zero), cols.Load(row, 2 * i + 1, zero), &even,
                          &odd);
          acc = V::Add(acc, even);
          if (kw > 1) acc = V::Add(acc, odd);
          if (kw > 2) acc = V::Add(acc, V::ShiftInNext(even, cols.Load(row, 2 * i + 2, zero)));
        }
        if (multiply) {
          cols.Store(yr, i, V::Mul(acc, V::Mul(row_inv, V::Load(col_inv + i * N))));
        } else {
          // An empty window (count 0) averages to 0, as in the reference.
          const T cnt = V::Mul(row_count, V::Load(col_count + i * N));
          cols.Store(yr, i, V::Div(acc, V::Max(cnt, V::Set1(1.f))));
        }
      }
    }
  }
}

template <typename V>
void Pool(const PoolParams& p, const float* x, float* y, int64_t planes) {
  if (MaxPool3x3SameFits(p, V::N)) return MaxPool3x3Same<V>(p, x, y, planes);
  if (PoolFlatFits(p, V::N)) return MaxPoolFlat<V>(p, x, y, planes);
  // Max pools with the usual windows get the unrolled versions: the generic tap loop's
  // overhead made a 3x3 stride-2 pool several times slower than its loads and maxes.
  if (p.is_max && PoolStride2Fits(p)) {
    if (p.kernel_w == 3) {
      MaxPoolStride2<V, 3>(p, x, y, planes);
    } else {
      MaxPoolStride2<V, 0>(p, x, y, planes);
    }
  } else if (!p.is_max && PoolStride2Fits(p)) {
    if (p.kernel_w == 2) {
      AvgPoolStride2<V, 2>(p, x, y, planes);
    } else {
      AvgPoolStride2<V, 0>(p, x, y, planes);
    }
  } else if (p.is_max && p.kernel_w == 3 && p.stride_w == 1) {
    PoolPlanes<V, true, 3, 1>(p, x, y, planes);
  } else if (p.is_max) {
    PoolPlanes<V, true>(p, x, y, planes);
  } else {
    PoolPlanes<V, false>(p, x, y, planes);
  }
}

// One NCHW8c pool output pixel (8 channels) at output row w / column ox with its window
// clipped to the input: the border pixels of PoolNCHW8cPlanes and of the AVX-512 stride-1 max
// pool. Taps in window order; the reference's divisors.
template <typename V, bool kMax>
inline void ClippedPoolPixelNCHW8c(const PoolParams& p, int kw, const float* xc, const PoolRows& w,
                                   int64_t ox, float* out) {
  using T = typename V::T;
  constexpr int64_t kB = 8;
  const T fill = kMax ? V::Set1(-FLT_MAX) : V::Zero();
  const int64_t ix0 = ox * p.stride_w - p.pad_left;
  const int kx0 = PoolClamp(-ix0, 0, kw), kx1 = PoolClamp(p.in_w - ix0, 0, kw);
  const int64_t cols = p.count_include_pad ? TapsIn(ix0, kw, -p.pad_left, p.in_w + p.pad_right)
                                           : TapsIn(ix0, kw, 0, p.in_w);
  // An empty window (count 0) averages to 0, as in the reference.
  const float count = static_cast<float>(w.counted * cols);
  for (int l = 0; l < kB; l += V::N) {
    T acc = fill;
    for (int ky = w.ky0; ky < w.ky1; ++ky) {
      const float* row = xc + ((w.iy0 + ky) * p.in_w + ix0) * kB + l;
      for (int kx = kx0; kx < kx1; ++kx) {
        // Max keeps the running value when the tap is NaN (the reference's v > best).
        acc = kMax ? V::Max(acc, V::Load(row + kx * kB)) : V::Add(acc, V::Load(row + kx * kB));
      }
    }
    if (!kMax) acc = V::Div(acc, V::Set1(count > 0.f ? count : 1.f));
    V::Store(out + l, acc);
  }
}

// Max / average pooling of `planes` NCHW8c block planes ([H][W][8]): a pixel's 8 channels
// are one 8-float group (one Vec256, 8 VecScalar), so each tap is one max or add per group,
// no masks or deinterleaves. Pixels whose window lies inside the input take the taps
// unrolled (KH x KW known: the 3x3 and 2x2 pools), the border ones their window clipped.
// Taps in window order and the reference's divisors, as PoolPlanes.
template <typename V, bool kMax, int KH, int KW>
void PoolNCHW8cPlanes(const PoolParams& p, const float* x, float* y, int64_t planes) {
  using T = typename V::T;
  constexpr int N = V::N;
  constexpr int64_t kB = 8;
  static_assert(kB % N == 0, "a vector holds whole 8-channel groups or part of one");
  const T fill = kMax ? V::Set1(-FLT_MAX) : V::Zero();
  const int64_t in_plane = p.in_h * p.in_w * kB, out_plane = p.out_h * p.out_w * kB;
  const int kh = KH ? KH : static_cast<int>(p.kernel_h);
  const int kw = KW ? KW : static_cast<int>(p.kernel_w);
  const int64_t sw = p.stride_w;
  // Output columns whose window lies inside the row: ox * sw - pad_left >= 0 and
  // ox * sw - pad_left + kw <= in_w.
  const int64_t ox_lo = (p.pad_left + sw - 1) / sw;
  const int64_t ox_hi = p.in_w - kw + p.pad_left >= 0 ? (p.in_w - kw + p.pad_left) / sw : -1;
  const T inner_count = V::Set1(static_cast<float>(kh * kw));
  auto clipped = [&](const float* xc, const PoolRows& w, int64_t ox, float* out) {
    ClippedPoolPixelNCHW8c<V, kMax>(p, kw, xc, w, ox, out);
  };
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * in_plane;
    float* yc = y + c * out_plane;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const PoolRows w = RowsOf(p, oy, kh);
      float* yr = yc + oy * p.out_w * kB;
      const bool all_rows = w.ky0 == 0 && w.ky1 == kh;
      int64_t ox = 0;
      for (; ox < p.out_w && (!all_rows || ox < ox_lo); ++ox) clipped(xc, w, ox, yr + ox * kB);
      if (kMax && KW == 3 && sw == 2 && ox <= ox_hi && ox < p.out_w) {
        // 3-wide windows at stride 2, separably: each input column's maximum over the window
        // rows once (from -FLT_MAX, so NaN taps drop out as in the reference), then each output
        // the maximum of three column maxima, the last of which is the next output's first:
        // 6 loads and 8 maxima per output instead of 9 and 9 (squeezenet's and resnet's
        // stride-2 pools: see the commit).
        const int64_t last = std::min(ox_hi, p.out_w - 1);
        const float* rows = xc + w.iy0 * p.in_w * kB;
        for (int l = 0; l < kB; l += N) {
          const auto column = [&](int64_t ix) {
            T m = fill;
            for (int ky = 0; ky < kh; ++ky)
              m = V::Max(m, V::Load(rows + (ky * p.in_w + ix) * kB + l));
            return m;
          };
          int64_t ix = ox * 2 - p.pad_left;
          T first = column(ix);
          for (int64_t o = ox; o <= last; ++o, ix += 2) {
            const T third = column(ix + 2);
            V::Store(yr + o * kB + l, V::Max(V::Max(first, column(ix + 1)), third));
            first = third;
          }
        }
        ox = last + 1;
      }
      for (; ox <= ox_hi && ox < p.out_w; ++ox) {
        const float* win = xc + (w.iy0 * p.in_w + ox * sw - p.pad_left) * kB;
        for (int l = 0; l < kB; l += N) {
          T acc = fill;
          for (int ky = 0; ky < kh; ++ky) {
            for (int kx = 0; kx < kw; ++kx) {
              const T v = V::Load(win + (ky * p.in_w + kx) * kB + l);
              acc = kMax ? V::Max(acc, v) : V::Add(acc, v);
            }
          }
          if (!kMax) {
            acc = V::Div(acc, p.count_include_pad ? V::Set1(static_cast<float>(w.counted * kw))
                                                  : inner_count);
          }
          V::Store(yr + ox * kB + l, acc);
        }
      }
      for (; ox < p.out_w; ++ox) clipped(xc, w, ox, yr + ox * kB);
    }
  }
}

template <typename V>
void PoolNCHW8c(const PoolParams& p, const float* x, float* y, int64_t planes) {
  if (p.kernel_h == 3 && p.kernel_w == 3) {
    p.is_max ? PoolNCHW8cPlanes<V, true, 3, 3>(p, x, y, planes)
             : PoolNCHW8cPlanes<V, false, 3, 3>(p, x, y, planes);
  } else if (p.kernel_h == 2 && p.kernel_w == 2) {
    p.is_max ? PoolNCHW8cPlanes<V, true, 2, 2>(p, x, y, planes)
             : PoolNCHW8cPlanes<V, false, 2, 2>(p, x, y, planes);
  } else {
    p.is_max ? PoolNCHW8cPlanes<V, true, 0, 0>(p, x, y, planes)
             : PoolNCHW8cPlanes<V, false, 0, 0>(p, x, y, planes);
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
