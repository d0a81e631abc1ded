// AVX2+FMA GEMM micro-kernel: an 8-row panel as two 4 x 24 slices (12 ymm accumulators, 3 for
// B, 1 broadcast: all 16 registers); and the transposed GEMM of small planes with the 8 pixels
// of a panel in the lanes.
#include "kernels/cpu/gemm_impl.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)

void GemmUkernel8x24Avx2(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                         float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  GemmUkernel<Vec256, 4, 3>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
}

namespace {

// Channels [J0, J0 + NJ) of a transposed tile over the whole reduction: one ymm accumulator per
// channel holds its 8 pixels, so each step is one panel load and NJ weight broadcasts, and the
// tile comes out channel-major (T[j][r], 8 floats a channel: GemmTStoreAvx2 stores rows of
// planes straight from it, no transpose). 12 accumulators, the panel vector and a broadcast fit
// the 16 registers.
template <int J0, int NJ>
__attribute__((always_inline)) inline void GemmTChannels(int64_t k, const float* a, const float* w,
                                                         int64_t block_stride, bool accumulate,
                                                         float* t) {
  __m256 acc[NJ];
#pragma GCC unroll 12
  for (int j = 0; j < NJ; ++j) {
    acc[j] = accumulate ? _mm256_load_ps(t + (J0 + j) * kGemmTRows) : _mm256_setzero_ps();
  }
  const float* w0 = w + (J0 / 16) * block_stride;
  const float* w1 = w0 + block_stride;  // channels of the next block (a chunk may straddle two)
#pragma GCC unroll 2
  for (int64_t p = 0; p < k; ++p) {
    const __m256 av = _mm256_loadu_ps(a + p * kGemmTRows);
#pragma GCC unroll 12
    for (int j = 0; j < NJ; ++j) {
      constexpr int kFirstInBlock = J0 % 16;
      const int c = kFirstInBlock + j;
      const float* wc = c < 16 ? w0 + c : w1 + (c - 16);
      acc[j] = _mm256_fmadd_ps(av, _mm256_broadcast_ss(wc + p * 16), acc[j]);
    }
  }
#pragma GCC unroll 12
  for (int j = 0; j < NJ; ++j) _mm256_store_ps(t + (J0 + j) * kGemmTRows, acc[j]);
}

// A panel of R <= 3 pixels (a plane's last: 7x7's 49 = 6 x 8 + 1) the other way round, the
// channels in the lanes: each step is NV = 2 * NB weight vectors, R broadcasts and R * NV FMAs
// where the pixels-in-lanes tile issues its 8 * 16 * NB FMAs whatever R. One pixel alternates
// two sets of accumulators over the steps (8 chains for the FMA latency of two pipes).
template <int R, int NB>
inline void GemmTNarrow(int64_t k, const float* a, const float* w, int64_t block_stride,
                        bool accumulate, float* t) {
  constexpr int NV = 2 * NB, S = R == 1 ? 2 : 1;
  __m256 acc[S][R][NV];
#pragma GCC unroll 2
  for (int s = 0; s < S; ++s) {
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[s][r][v] = _mm256_setzero_ps();
    }
  }
  auto step = [&](int s, int64_t p) {
    __m256 wv[NV];
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v)
      wv[v] = _mm256_loadu_ps(w + (v / 2) * block_stride + p * 16 + (v % 2) * 8);
#pragma GCC unroll 3
    for (int r = 0; r < R; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + p * kGemmTRows + r);
#pragma GCC unroll 4
      for (int v = 0; v < NV; ++v) acc[s][r][v] = _mm256_fmadd_ps(av, wv[v], acc[s][r][v]);
    }
  };
  int64_t p = 0;
  for (; p + S <= k; p += S) {
#pragma GCC unroll 2
    for (int s = 0; s < S; ++s) step(s, p + s);
  }
  for (; p < k; ++p) step(0, p);
  // Back to the channel-major tile: channel j's lane r (zero past R).
  alignas(32) float sums[R][NV * 8];
#pragma GCC unroll 3
  for (int r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (int v = 0; v < NV; ++v) {
      _mm256_store_ps(sums[r] + v * 8,
                      S == 2 ? _mm256_add_ps(acc[0][r][v], acc[S - 1][r][v]) : acc[0][r][v]);
    }
  }
  for (int j = 0; j < NV * 8; ++j) {
    alignas(16) float lanes[4] = {};
    for (int r = 0; r < R; ++r) lanes[r] = sums[r][j];
    __m256 v = _mm256_zextps128_ps256(_mm_load_ps(lanes));
    if (accumulate) v = _mm256_add_ps(v, _mm256_load_ps(t + j * kGemmTRows));
    _mm256_store_ps(t + j * kGemmTRows, v);
  }
}

}  // namespace

// 32 channels as 12 + 12 + 8 (three passes over the panel slice, which stays in L1), 16 as
// 8 + 8 (eight chains still cover the FMA latency of two pipes); panels of up to 3 pixels
// with the channels in the lanes.
void GemmTUkernelAvx2(int64_t k, const float* a, const float* w, int64_t block_stride, int nb,
                      int rows, bool accumulate, float* t) {
  if (rows <= 3) {
    auto narrow = rows == 1   ? (nb == 2 ? GemmTNarrow<1, 2> : GemmTNarrow<1, 1>)
                  : rows == 2 ? (nb == 2 ? GemmTNarrow<2, 2> : GemmTNarrow<2, 1>)
                              : (nb == 2 ? GemmTNarrow<3, 2> : GemmTNarrow<3, 1>);
    return narrow(k, a, w, block_stride, accumulate, t);
  }
  if (nb == 2) {
    GemmTChannels<0, 12>(k, a, w, block_stride, accumulate, t);
    GemmTChannels<12, 12>(k, a, w, block_stride, accumulate, t);
    GemmTChannels<24, 8>(k, a, w, block_stride, accumulate, t);
  } else {
    GemmTChannels<0, 8>(k, a, w, block_stride, accumulate, t);
    GemmTChannels<8, 8>(k, a, w, block_stride, accumulate, t);
  }
}

// T is channel-major here: each channel's 8 pixels are one vector, stored as is (masked on a
// plane's last panel).
bool GemmTStoreAvx2(const float* t, int rows, int cols, const float* bias, const float* residual,
                    int64_t ldy, const ActivationParams& act, float* y) {
  const bool relu = act.kind == Activation::kRelu, clip = act.kind == Activation::kClip;
  const bool fused = relu || clip || act.kind == Activation::kNone;
  const __m256 lo = _mm256_set1_ps(relu ? 0.f : act.alpha), hi = _mm256_set1_ps(act.beta);
  const bool whole = rows == kGemmTRows;
  for (int j = 0; j < cols; ++j) {
    __m256 v = _mm256_load_ps(t + j * kGemmTRows);
    if (bias) v = _mm256_add_ps(v, _mm256_set1_ps(bias[j]));
    if (residual) {
      const float* r = residual + j * ldy;
      v = _mm256_add_ps(v, whole ? Vec256::Load(r) : Vec256::LoadPartial(r, rows));
    }
    if (relu || clip) v = _mm256_max_ps(v, lo);
    if (clip) v = _mm256_min_ps(v, hi);
    if (whole) {
      Vec256::Store(y + j * ldy, v);
    } else {
      Vec256::StorePartial(y + j * ldy, v, rows);
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
