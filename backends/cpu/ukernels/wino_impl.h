// Winograd F(4x4, 3x3) input and output transforms, written once over the simd.h vectors and
// instantiated per ISA (wino_<isa>.cc). Vectorised over the tiles of a tile row: a 4-way
// deinterleave turns each input row into the four column phases of the tiles (masked loads at
// the row's ends: padding reads as zero, nothing outside a row is read), and a 4-way
// interleave turns the outputs back into contiguous rows. Matrices as in Lavin & Gray (2015),
// points 0, +-1, +-2.
#pragma once

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

inline int WinoClamp(int64_t v, int64_t lo, int64_t hi) {
  return static_cast<int>(v < lo ? lo : (v > hi ? hi : v));
}

// Columns c0 + 4m + q (q = 0..3) of one row as four vectors over m; columns outside
// [0, width) read as zero.
template <typename V>
inline void LoadPhases4(const float* row, int64_t c0, int64_t width, typename V::T (&q)[4]) {
  constexpr int N = V::N;
  typename V::T raw[4];
  for (int r = 0; r < 4; ++r) {
    const int64_t s = c0 + r * N;
    if (s >= 0 && s + N <= width) {
      // Inside the row, a plain load: AVX2's masked loads (and their mask arithmetic) cost
      // more, most where the rows come from beyond the L2 (super_resolution's 224x224 layers
      // in the model 1.15-1.5x, resnet18_rw's 64 x 56x56 1.05-1.12x; Zen 3).
      raw[r] = V::Load(row + s);
    } else {
      raw[r] =
          V::LoadMasked(row + s, V::MakeRangeMask(WinoClamp(-s, 0, N), WinoClamp(width - s, 0, N)));
    }
  }
  typename V::T e01, o01, e23, o23;
  V::Deinterleave(raw[0], raw[1], &e01, &o01);
  V::Deinterleave(raw[2], raw[3], &e23, &o23);
  V::Deinterleave(e01, e23, &q[0], &q[2]);
  V::Deinterleave(o01, o23, &q[1], &q[3]);
}

// B^T d for one 6-vector: the input transform along one axis.
template <typename V>
inline void InputTransform6(const typename V::T (&d)[6], typename V::T (&t)[6]) {
  using T = typename V::T;
  const T four = V::Set1(4.f), two = V::Set1(2.f);
  const T d4_d2 = V::Sub(d[4], d[2]);
  t[0] = V::Add(V::Fma(four, d[0], V::Mul(V::Set1(-5.f), d[2])), d[4]);
  t[1] = V::Sub(V::Add(d[3], d[4]), V::Mul(four, V::Add(d[1], d[2])));
  t[2] = V::Fma(four, V::Sub(d[1], d[2]), V::Sub(d[4], d[3]));
  t[3] = V::Fma(two, V::Sub(d[3], d[1]), d4_d2);
  t[4] = V::Fma(two, V::Sub(d[1], d[3]), d4_d2);
  t[5] = V::Add(V::Fma(four, d[1], V::Mul(V::Set1(-5.f), d[3])), d[5]);
}

// A^T m for one 6-vector: the output transform along one axis (6 -> 4).
template <typename V>
inline void OutputTransform6(const typename V::T (&m)[6], typename V::T (&s)[4]) {
  using T = typename V::T;
  const T a = V::Add(m[1], m[2]), b = V::Sub(m[1], m[2]);
  const T c = V::Add(m[3], m[4]), d = V::Sub(m[3], m[4]);
  s[0] = V::Add(V::Add(m[0], a), c);
  s[1] = V::Fma(V::Set1(2.f), d, b);
  s[2] = V::Fma(V::Set1(4.f), c, a);
  s[3] = V::Add(V::Fma(V::Set1(8.f), d, b), m[5]);
}

template <typename V>
void WinoInput(const WinoParams& p, const float* x, int64_t ty0, int64_t ty1, float* v,
               int64_t e_stride) {
  using T = typename V::T;
  constexpr int N = V::N;
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    const int64_t t_base = (ty - ty0) * p.tiles_w;
    const int64_t iy0 = 4 * ty - p.pad_top;
    for (int64_t tx0 = 0; tx0 < p.tiles_w; tx0 += N) {
      const int nt = WinoClamp(p.tiles_w - tx0, 0, N);
      const int64_t c0 = 4 * tx0 - p.pad_left;  // input column of lane 0's tile
      // Vertical pass first: t[k][i] = (B^T d)[k] for tile column i.
      T t[6][6];
      T col[6][6];  // col[i][j]: row j, tile column i
      for (int j = 0; j < 6; ++j) {
        const int64_t iy = iy0 + j;
        if (iy < 0 || iy >= p.in_h) {
          for (int i = 0; i < 6; ++i) col[i][j] = V::Zero();
          continue;
        }
        const float* row = x + iy * p.in_w;
        T q[4], q_next[4];
        LoadPhases4<V>(row, c0, p.in_w, q);
        LoadPhases4<V>(row, c0 + 4, p.in_w, q_next);
        col[0][j] = q[0];
        col[1][j] = q[1];
        col[2][j] = q[2];
        col[3][j] = q[3];
        col[4][j] = q_next[0];
        col[5][j] = q_next[1];
      }
      for (int i = 0; i < 6; ++i) {
        T out[6];
        InputTransform6<V>(col[i], out);
        for (int k = 0; k < 6; ++k) t[k][i] = out[k];
      }
      // Horizontal pass: V[k][l] = (t[k] B)[l].
      for (int k = 0; k < 6; ++k) {
        T out[6];
        InputTransform6<V>(t[k], out);
        for (int l = 0; l < 6; ++l) {
          float* dst = v + (k * 6 + l) * e_stride + t_base + tx0;
          if (nt == N) {
            V::Store(dst, out[l]);
          } else {
            V::StorePartial(dst, out[l], nt);
          }
        }
      }
    }
  }
}

template <typename V>
void WinoOutput(const WinoParams& p, const float* m, int64_t e_stride, float bias,
                const float* residual, const ActivationParams& act, int64_t ty0, int64_t ty1,
                float* y) {
  using T = typename V::T;
  constexpr int N = V::N;
  const T bv = V::Set1(bias);
  for (int64_t ty = ty0; ty < ty1; ++ty) {
    const int64_t t_base = (ty - ty0) * p.tiles_w;
    for (int64_t tx0 = 0; tx0 < p.tiles_w; tx0 += N) {
      const int nt = WinoClamp(p.tiles_w - tx0, 0, N);
      // Vertical pass: s[i][l] = (A^T M)[i][l].
      T s[4][6];
      for (int l = 0; l < 6; ++l) {
        T col[6];
        for (int k = 0; k < 6; ++k) {
          const float* src = m + (k * 6 + l) * e_stride + t_base + tx0;
          col[k] = nt == N ? V::Load(src) : V::LoadPartial(src, nt);
        }
        T out[4];
        OutputTransform6<V>(col, out);
        for (int i = 0; i < 4; ++i) s[i][l] = out[i];
      }
      for (int i = 0; i < 4; ++i) {
        const int64_t oy = 4 * ty + i;
        if (oy >= p.out_h) break;
        T yv[4];
        OutputTransform6<V>(s[i], yv);
        // Columns 4 tx + j as contiguous vectors covering 4N output columns.
        T a_lo, a_hi, b_lo, b_hi, out[4];
        V::Interleave(yv[0], yv[2], &a_lo, &a_hi);
        V::Interleave(yv[1], yv[3], &b_lo, &b_hi);
        V::Interleave(a_lo, b_lo, &out[0], &out[1]);
        V::Interleave(a_hi, b_hi, &out[2], &out[3]);
        for (int r = 0; r < 4; ++r) {
          const int64_t ox = 4 * tx0 + r * N;
          const int n = WinoClamp(p.out_w - ox, 0, N);
          if (n <= 0) break;
          T val = V::Add(out[r], bv);
          const int64_t o = oy * p.out_w + ox;
          if (residual) {
            val = V::Add(val, n == N ? V::Load(residual + o) : V::LoadPartial(residual + o, n));
          }
          val = Activate<V>(act, val);
          if (n == N) {
            V::Store(y + o, val);
          } else {
            V::StorePartial(y + o, val, n);
          }
        }
      }
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
