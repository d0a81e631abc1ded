// AVX2+FMA GEMM micro-kernel: an 8-row panel as two 4 x 24 slices (12 ymm accumulators, 3 for
// B, 1 broadcast: all 16 registers); and the transposed GEMM of small planes with the output
// channels in the lanes.
#include <algorithm>

#include "backends/cpu/ukernels/gemm_impl.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)

void GemmUkernel8x24Avx2(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                         float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  GemmUkernel<Vec256, 4, 3>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
}

namespace {

// Rows [0, R) of a transposed tile's NV weight vectors (Block16O blocks of two vectors) over
// the whole reduction, the channels in the lanes: each step loads NV weight vectors and
// broadcasts R pixels of the panel, R * NV FMAs. S sets of accumulators alternate over the
// steps so a pass has at least 8 independent chains (the FMA latency of two pipes).
// Pixels in the lanes instead (one panel vector, a broadcast per channel) took 13 loads per
// 12 FMAs and ran at 38-41 GMAC/s from L1 on Zen 3; 4 pixels x 16 channels takes 6 per 8 and
// runs at 47-50 (the two alternating in one process, best of each).
template <int R, int NV, int S>
__attribute__((always_inline)) inline void GemmTPass(int64_t k, const float* a, const float* w,
                                                     int64_t block_stride, bool accumulate,
                                                     float* t) {
  static_assert(R * NV * S + NV + 1 <= 16, "accumulators, weights and a broadcast in registers");
  __m256 acc[S][R][NV];
#pragma GCC unroll 4
  for (int s = 0; s < S; ++s) {
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) {
        acc[s][r][v] =
            accumulate && s == 0 ? _mm256_load_ps(t + r * kGemmTCols + v * 8) : _mm256_setzero_ps();
      }
    }
  }
  auto step = [&](int s, int64_t p) {
    __m256 wv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      wv[v] = _mm256_loadu_ps(w + (v / 2) * block_stride + p * 16 + (v % 2) * 8);
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + p * kGemmTRows + r);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[s][r][v] = _mm256_fmadd_ps(av, wv[v], acc[s][r][v]);
    }
  };
  int64_t p = 0;
#pragma GCC unroll 2
  for (; p + S <= k; p += S) {
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) step(s, p + s);
  }
  for (; p < k; ++p) step(0, p);
#pragma GCC unroll 4
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      __m256 sum = acc[0][r][v];
#pragma GCC unroll 4
      for (int s = 1; s < S; ++s) sum = _mm256_add_ps(sum, acc[s][r][v]);
      _mm256_store_ps(t + r * kGemmTCols + v * 8, sum);
    }
  }
}

// R (1-4) rows of the tile: four rows a 16-channel block at a time, three likewise with a second
// set of accumulators, one or two over both blocks at once.
template <int R>
void GemmTRows(int64_t k, const float* a, const float* w, int64_t block_stride, int nb,
               bool accumulate, float* t) {
  if constexpr (R >= 3) {
    for (int b = 0; b < nb; ++b) {
      GemmTPass<R, 2, R == 3 ? 2 : 1>(k, a, w + b * block_stride, block_stride, accumulate,
                                      t + b * 16);
    }
  } else if (nb == 2) {
    GemmTPass<R, 4, R == 1 ? 2 : 1>(k, a, w, block_stride, accumulate, t);
  } else {
    GemmTPass<R, 2, R == 1 ? 4 : 2>(k, a, w, block_stride, accumulate, t);
  }
}

}  // namespace

// T is row-major, T[r][j], as on AVX-512: the 8 rows in passes of up to 4 (a plane's last
// panel may have fewer: 7x7's 49 = 6 x 8 + 1 takes only its one row).
void GemmTUkernelAvx2(int64_t k, const float* a, const float* w, int64_t block_stride, int nb,
                      int rows, bool accumulate, float* t) {
  for (int r0 = 0; r0 < rows; r0 += 4) {
    const float* ar = a + r0;
    float* tr = t + r0 * kGemmTCols;
    switch (std::min(4, rows - r0)) {
      case 1:
        GemmTRows<1>(k, ar, w, block_stride, nb, accumulate, tr);
        break;
      case 2:
        GemmTRows<2>(k, ar, w, block_stride, nb, accumulate, tr);
        break;
      case 3:
        GemmTRows<3>(k, ar, w, block_stride, nb, accumulate, tr);
        break;
      default:
        GemmTRows<4>(k, ar, w, block_stride, nb, accumulate, tr);
        break;
    }
  }
}

// Each 8-channel column block of T is transposed (8 x 8 in registers) into the channels' pixel
// vectors, stored masked on a plane's last panel.
bool GemmTStoreAvx2(const float* t, int rows, int cols, const float* bias, const float* residual,
                    int64_t ldy, const ActivationParams& act, float* y) {
  const bool relu = act.kind == Activation::kRelu, clip = act.kind == Activation::kClip;
  const bool fused = IsInlineActivation(act.kind);
  const __m256 lo = _mm256_set1_ps(relu ? 0.f : act.alpha), hi = _mm256_set1_ps(act.beta);
  const bool whole = rows == kGemmTRows;
  for (int h = 0; h * 8 < cols; ++h) {
    __m256 r[8], u[8], c[8];
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) r[i] = _mm256_load_ps(t + i * kGemmTCols + h * 8);
#pragma GCC unroll 2
    for (int q = 0; q < 8; q += 4) {
      const __m256 t0 = _mm256_unpacklo_ps(r[q], r[q + 1]), t1 = _mm256_unpackhi_ps(r[q], r[q + 1]);
      const __m256 t2 = _mm256_unpacklo_ps(r[q + 2], r[q + 3]);
      const __m256 t3 = _mm256_unpackhi_ps(r[q + 2], r[q + 3]);
      u[q] = _mm256_shuffle_ps(t0, t2, 0x44);
      u[q + 1] = _mm256_shuffle_ps(t0, t2, 0xEE);
      u[q + 2] = _mm256_shuffle_ps(t1, t3, 0x44);
      u[q + 3] = _mm256_shuffle_ps(t1, t3, 0xEE);
    }
#pragma GCC unroll 4
    for (int i = 0; i < 4; ++i) {
      c[i] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x20);      // rows 0-3 of column i, 4-7
      c[i + 4] = _mm256_permute2f128_ps(u[i], u[i + 4], 0x31);  // column i + 4
    }
    const int n = std::min(8, cols - h * 8);
    for (int i = 0; i < n; ++i) {
      const int j = h * 8 + i;
      __m256 v = c[i];
      if (bias) v = _mm256_add_ps(v, _mm256_set1_ps(bias[j]));
      if (residual) {
        const float* rj = residual + j * ldy;
        v = _mm256_add_ps(v, whole ? Vec256::Load(rj) : Vec256::LoadPartial(rj, rows));
      }
      if (relu || clip) v = _mm256_max_ps(v, lo);
      if (clip) v = _mm256_min_ps(v, hi);
      if (whole) {
        Vec256::Store(y + j * ldy, v);
      } else {
        Vec256::StorePartial(y + j * ldy, v, rows);
      }
    }
  }
  return fused;
}

void GemvAvx2(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
              int64_t n, const ActivationParams& act) {
  Gemv<Vec256>(k, a, b, ldb, c, y, n, act);
}

void GemvBlock16Avx2(int64_t k, const float* a, const float* w, int64_t n, float alpha,
                     const float* c, bool c_scalar, float beta, float* y,
                     const ActivationParams& act) {
  GemvBlock16<Vec256>(k, a, w, n, alpha, c, c_scalar, beta, y, act);
}
#endif
}  // namespace kiln::cpu
