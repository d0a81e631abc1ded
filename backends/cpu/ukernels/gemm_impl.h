// The register-blocked GEMM micro-kernel, written once over the simd.h vectors and
// instantiated per ISA (gemm_*_<isa>.cc) with its tile shape.
#pragma once

#include "backends/cpu/ukernels/activation_simd.h"
#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// Zero (first k block) or C's partial sums (later blocks). All tile loops have constant trip
// counts and are fully unrolled, so `acc` is never indexed dynamically (which would make GCC
// keep it in memory and store every accumulator on every k step).
template <typename V, int ROWS, int NV>
__attribute__((always_inline)) inline void GemmTileInit(typename V::T (&acc)[ROWS][NV],
                                                        const float* c, int64_t ldc, int mr, int nr,
                                                        int flags, const Epilogue& ep) {
  // First block: zero, or the residual (kGemmResidualFirst); later blocks: C's partial sums.
  const bool first = flags & kGemmFirst;
  const float* src0 = first ? ((flags & kGemmResidualFirst) ? ep.residual : nullptr) : c;
  const int64_t ld = first ? ep.ldr : ldc;
  if (src0 == nullptr) {
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) acc[r][j] = V::Zero();
    }
    return;
  }
  if (mr >= ROWS && nr >= NV * V::N) {
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) acc[r][j] = V::Load(src0 + r * ld + j * V::N);
    }
    return;
  }
#pragma GCC unroll 16
  for (int r = 0; r < ROWS; ++r) {
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) {
      const int n = nr - j * V::N;
      acc[r][j] = V::Zero();
      if (src0 && r < mr && n > 0) {
        const float* src = src0 + r * ld + j * V::N;
        acc[r][j] = n >= V::N ? V::Load(src) : V::LoadPartial(src, n);
      }
    }
  }
}

// The last block's whole tile (ROWS x NV vectors): bias (zeros where there is none),
// residual where `residual`, then `f`, with no test per vector.
template <typename V, int ROWS, int NV, typename F>
__attribute__((always_inline)) inline void GemmStoreWholeTile(typename V::T (&acc)[ROWS][NV],
                                                              float* c, int64_t ldc,
                                                              const Epilogue& ep, bool residual,
                                                              F f) {
  static constexpr float kNoBias[ROWS] = {};
  const float* bias = ep.bias ? ep.bias : kNoBias;
  if (residual) {
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
      const typename V::T b = V::Set1(bias[r]);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) {
        const float* res = ep.residual + r * ep.ldr + j * V::N;
        V::Store(c + r * ldc + j * V::N, f(V::Add(V::Add(acc[r][j], b), V::Load(res))));
      }
    }
  } else {
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
      const typename V::T b = V::Set1(bias[r]);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) V::Store(c + r * ldc + j * V::N, f(V::Add(acc[r][j], b)));
    }
  }
}

template <typename V, int ROWS, int NV>
__attribute__((always_inline)) inline void GemmTileStore(typename V::T (&acc)[ROWS][NV], float* c,
                                                         int64_t ldc, int mr, int nr, int flags,
                                                         const Epilogue& ep) {
  using T = typename V::T;
  const bool last = flags & kGemmLast;
  // Whole tiles with the inline activations: one switch per tile. The general path below
  // tests the bias, residual, activation and tile edge for every vector, which cost ~180
  // cycles per call more (8x48 tiles, K = 1..32, output in L1): as much as 15 k steps.
  if (!last && mr >= ROWS && nr >= NV * V::N) {  // partial sums of a whole tile
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) V::Store(c + r * ldc + j * V::N, acc[r][j]);
    }
    return;
  }
  if (last && mr >= ROWS && nr >= NV * V::N) {
    const bool res = ep.residual && !(flags & kGemmResidualFirst);
    if (WithInlineActivation<V>(
            ep.act, [&](auto act) __attribute__((always_inline)) {
              GemmStoreWholeTile<V, ROWS, NV>(acc, c, ldc, ep, res, act);
            })) {
      return;
    }
  }
  const bool deferred = last && !IsInlineActivation(ep.act.kind);
#pragma GCC unroll 16
  for (int r = 0; r < ROWS; ++r) {
    if (r >= mr) continue;
    const T bias = last && ep.bias ? V::Set1(ep.bias[r]) : V::Zero();
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) {
      const int n = nr - j * V::N;
      if (n <= 0) continue;
      T v = acc[r][j];
      if (last) {
        v = V::Add(v, bias);
        if (ep.residual && !(flags & kGemmResidualFirst)) {
          const float* res = ep.residual + r * ep.ldr + j * V::N;
          v = V::Add(v, n >= V::N ? V::Load(res) : V::LoadPartial(res, n));
        }
        if (!deferred) v = Activate<V>(ep.act, v);
      }
      if (n >= V::N) {
        V::Store(c + r * ldc + j * V::N, v);
      } else {
        V::StorePartial(c + r * ldc + j * V::N, v, n);
      }
    }
  }
  if (deferred) {
    for (int r = 0; r < ROWS && r < mr; ++r) ActivateArray<V>(c + r * ldc, nr, ep.act);
  }
}

// A ROWS x (NV * V::N) tile: rows [row0, row0 + ROWS) of an A panel (kGemmMr floats per k).
// Accumulators stay in registers for the whole k loop. kMasked reads B rows with lane masks
// (only the first nr columns exist). Everything is in one function on purpose: GCC keeps
// accumulator arrays in registers only when no reference to them crosses a call.
template <typename V, int ROWS, int NV, bool kMasked>
inline void GemmTile(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                     int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  using T = typename V::T;
  T acc[ROWS][NV];
  GemmTileInit<V, ROWS, NV>(acc, c, ldc, mr, nr, flags, ep);
  typename V::MaskT mask[NV];
#pragma GCC unroll 8
  for (int j = 0; j < NV; ++j) mask[j] = V::MakeMask(kMasked ? nr - j * V::N : V::N);
#pragma GCC unroll 2
  for (int64_t p = 0; p < k; ++p) {
    T bv[NV];
#pragma GCC unroll 8
    for (int j = 0; j < NV; ++j) {
      bv[j] = kMasked ? V::LoadMasked(b + j * V::N, mask[j]) : V::Load(b + j * V::N);
    }
#pragma GCC unroll 16
    for (int r = 0; r < ROWS; ++r) {
      const T av = V::Set1(a[r]);
#pragma GCC unroll 8
      for (int j = 0; j < NV; ++j) acc[r][j] = V::Fma(av, bv[j], acc[r][j]);
    }
    a += lda;
    b += ldb;
  }
  GemmTileStore<V, ROWS, NV>(acc, c, ldc, mr, nr, flags, ep);
}

template <typename V, int ROWS, int NV>
inline void GemmSlice(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                      int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  if constexpr (NV > 1) {
    // A tail tile whose columns fit in fewer vectors (13x13 and 14x14 planes end in 9 and 4
    // columns of a 32-wide tile) does only the FMAs of those vectors.
    if (nr <= (NV - 1) * V::N) {
      GemmSlice<V, ROWS, NV - 1>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
      return;
    }
  }
  if (nr == NV * V::N || (flags & kGemmPaddedB)) {
    GemmTile<V, ROWS, NV, false>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
  } else {
    GemmTile<V, ROWS, NV, true>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
  }
}

// The full kGemmMr-row micro-kernel from slices of ROWS rows (ROWS divides kGemmMr).
template <typename V, int ROWS, int NV>
void GemmUkernel(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb, float* c,
                 int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  static_assert(kGemmMr % ROWS == 0);
  for (int r0 = 0; r0 < mr; r0 += ROWS) {
    Epilogue sub = ep;
    if (sub.bias) sub.bias += r0;
    if (sub.residual) sub.residual += r0 * ep.ldr;
    GemmSlice<V, ROWS, NV>(k, a + r0, lda, b, ldb, c + r0 * ldc, ldc, mr - r0, nr, flags, sub);
  }
}

// GemmTUkernelFn's tile over NB Block16O blocks: 8 pixel rows x NB * 16 channels, the
// accumulators in registers for the whole reduction (fully unrolled tile loops, as above).
template <typename V, int NB>
inline void GemmTTile(int64_t k, const float* a, const float* w, int64_t block_stride,
                      bool accumulate, float* t) {
  using T = typename V::T;
  constexpr int L = 16 / V::N, J = NB * L;
  T acc[kGemmTRows][J];
#pragma GCC unroll 8
  for (int r = 0; r < kGemmTRows; ++r) {
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j) {
      acc[r][j] = accumulate ? V::Load(t + r * kGemmTCols + j * V::N) : V::Zero();
    }
  }
#pragma GCC unroll 2
  for (int64_t p = 0; p < k; ++p) {
    T bv[J];
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j)
      bv[j] = V::Load(w + (j / L) * block_stride + p * 16 + (j % L) * V::N);
#pragma GCC unroll 8
    for (int r = 0; r < kGemmTRows; ++r) {
      const T av = V::Set1(a[p * kGemmTRows + r]);
#pragma GCC unroll 4
      for (int j = 0; j < J; ++j) acc[r][j] = V::Fma(av, bv[j], acc[r][j]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < kGemmTRows; ++r) {
#pragma GCC unroll 4
    for (int j = 0; j < J; ++j) V::Store(t + r * kGemmTCols + j * V::N, acc[r][j]);
  }
}

// Four vectors of columns at a time (four independent FMA chains), B rows streamed.
template <typename V>
void Gemv(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
          int64_t n, const ActivationParams& act) {
  using T = typename V::T;
  constexpr int N = V::N;
  int64_t j = 0;
  for (; j + 4 * N <= n; j += 4 * N) {
    T acc[4] = {V::Zero(), V::Zero(), V::Zero(), V::Zero()};
    const float* bj = b + j;
    for (int64_t p = 0; p < k; ++p) {
      const T av = V::Set1(a[p]);
#pragma GCC unroll 4
      for (int q = 0; q < 4; ++q) acc[q] = V::Fma(av, V::Load(bj + p * ldb + q * N), acc[q]);
    }
#pragma GCC unroll 4
    for (int q = 0; q < 4; ++q) {
      T v = c ? V::Add(acc[q], V::Load(c + j + q * N)) : acc[q];
      V::Store(y + j + q * N, Activate<V>(act, v));
    }
  }
  for (; j < n; j += N) {
    const int rest = n - j < N ? static_cast<int>(n - j) : N;
    const typename V::MaskT m = V::MakeMask(rest);
    T acc = V::Zero();
    for (int64_t p = 0; p < k; ++p)
      acc = V::Fma(V::Set1(a[p]), V::LoadMasked(b + p * ldb + j, m), acc);
    if (c) acc = V::Add(acc, V::LoadPartial(c + j, rest));
    V::StorePartial(y + j, Activate<V>(act, acc), rest);
  }
}

// Blocks [b0, b0 + BLK) of a Block16O matrix-vector product (see GemvBlock16Fn).
template <typename V, int BLK>
inline void GemvBlock16Blocks(int64_t k, const float* a, const float* w, int64_t n, int64_t b0,
                              float alpha, const float* c, bool c_scalar, float beta, float* y,
                              const ActivationParams& act) {
  using T = typename V::T;
  constexpr int N = V::N, L = 16 / V::N;
  T acc[BLK][L];
#pragma GCC unroll 4
  for (int b = 0; b < BLK; ++b)
#pragma GCC unroll 16
    for (int l = 0; l < L; ++l) acc[b][l] = V::Zero();
  for (int64_t p = 0; p < k; ++p) {
    const T av = V::Set1(a[p]);
#pragma GCC unroll 4
    for (int b = 0; b < BLK; ++b) {
      const float* wb = w + ((b0 + b) * k + p) * 16;
#pragma GCC unroll 16
      for (int l = 0; l < L; ++l) acc[b][l] = V::Fma(av, V::Load(wb + l * N), acc[b][l]);
    }
  }
#pragma GCC unroll 4
  for (int b = 0; b < BLK; ++b) {
#pragma GCC unroll 16
    for (int l = 0; l < L; ++l) {
      const int64_t col = (b0 + b) * 16 + l * N;
      const int cnt = n - col < N ? static_cast<int>(n - col) : N;
      if (cnt <= 0) continue;
      T v = alpha == 1.f ? acc[b][l] : V::Mul(V::Set1(alpha), acc[b][l]);
      if (c) {
        T cv =
            c_scalar ? V::Set1(c[0]) : (cnt == N ? V::Load(c + col) : V::LoadPartial(c + col, cnt));
        v = V::Add(v, beta == 1.f ? cv : V::Mul(V::Set1(beta), cv));
      }
      v = Activate<V>(act, v);
      if (cnt == N) {
        V::Store(y + col, v);
      } else {
        V::StorePartial(y + col, v, cnt);
      }
    }
  }
}

template <typename V>
void GemvBlock16(int64_t k, const float* a, const float* w, int64_t n, float alpha, const float* c,
                 bool c_scalar, float beta, float* y, const ActivationParams& act) {
  const int64_t blocks = (n + 15) / 16;
  int64_t b0 = 0;
  for (; b0 + 4 <= blocks; b0 += 4) {
    GemvBlock16Blocks<V, 4>(k, a, w, n, b0, alpha, c, c_scalar, beta, y, act);
  }
  for (; b0 < blocks; ++b0) {
    GemvBlock16Blocks<V, 1>(k, a, w, n, b0, alpha, c, c_scalar, beta, y, act);
  }
}

}  // namespace
}  // namespace kiln::cpu
