// AVX-512 GEMM micro-kernels: 8 rows x 32 columns (16 zmm accumulators) and, for B read in
// place (1x1 layers), 8 rows x 48 columns (24 accumulators).
#include "backends/cpu/ukernels/gemm_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)

void GemmUkernel8x32Avx512(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  GemmUkernel<Vec512, 8, 2>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
}

// Per reduction step 3 B loads and 8 broadcasts feed 24 FMAs where the 32-column tile's 2 and 8
// feed 16: the 32-column tile needs as many issue slots (30 per step with the loop) as its
// FMAs take cycles, this one has slack. On 1x1 layers (Cascade Lake, one thread, A and B in
// L2, best of 1 s): 96 -> 576 on 14x14 0.236 -> 0.199 ms, 160 -> 960 on 7x7 (49 columns: one
// full tile and one column, where the 32-column tiles padded 17 columns to 32) 0.328 -> 0.198.
void GemmUkernel8x48Avx512(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  GemmUkernel<Vec512, 8, 3>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
}

void GemmTUkernel8x32Avx512(int64_t k, const float* a, const float* w, int64_t block_stride, int nb,
                            int /*rows*/, bool accumulate, float* t) {
  if (nb == 2) {
    GemmTTile<Vec512, 2>(k, a, w, block_stride, accumulate, t);
  } else {
    GemmTTile<Vec512, 1>(k, a, w, block_stride, accumulate, t);
  }
}

// Eight rows of 16 channels (zmm) become 16 channels of 8 pixels: in-lane 4x4 transposes
// (unpack, shuffle) give u[i] = channel 4L + i of 128-bit lane L, pixels 0-3 (i < 4) or 4-7
// (i >= 4); two lane shuffles pair pixels 0-3 with 4-7, two channels per zmm. 32 shuffles per
// 128 outputs where the scalar loop took a load, two adds and a store per output.
bool GemmTStoreAvx512(const float* t, int rows, int cols, const float* bias, const float* residual,
                      int64_t ldy, const ActivationParams& act, float* y) {
  const bool relu = act.kind == Activation::kRelu, clip = act.kind == Activation::kClip;
  const bool fused = IsInlineActivation(act.kind);
  const __mmask8 m = static_cast<__mmask8>((1u << rows) - 1u);
  const __m256 lo = _mm256_set1_ps(relu ? 0.f : act.alpha), hi = _mm256_set1_ps(act.beta);
  auto put = [&](int j, __m256 v) {
    if (j >= cols) return;
    if (bias) v = _mm256_add_ps(v, _mm256_set1_ps(bias[j]));
    if (residual) v = _mm256_add_ps(v, _mm256_maskz_loadu_ps(m, residual + j * ldy));
    if (relu || clip) v = _mm256_max_ps(v, lo);
    if (clip) v = _mm256_min_ps(v, hi);
    _mm256_mask_storeu_ps(y + j * ldy, m, v);
  };
  for (int h = 0; h * 16 < cols; ++h) {
    __m512 r[8], u[8];
    for (int i = 0; i < 8; ++i) r[i] = _mm512_load_ps(t + i * kGemmTCols + h * 16);
    for (int q = 0; q < 8; q += 4) {
      const __m512 t0 = _mm512_unpacklo_ps(r[q], r[q + 1]), t1 = _mm512_unpackhi_ps(r[q], r[q + 1]);
      const __m512 t2 = _mm512_unpacklo_ps(r[q + 2], r[q + 3]);
      const __m512 t3 = _mm512_unpackhi_ps(r[q + 2], r[q + 3]);
      u[q] = _mm512_shuffle_ps(t0, t2, 0x44);
      u[q + 1] = _mm512_shuffle_ps(t0, t2, 0xEE);
      u[q + 2] = _mm512_shuffle_ps(t1, t3, 0x44);
      u[q + 3] = _mm512_shuffle_ps(t1, t3, 0xEE);
    }
    for (int i = 0; i < 4; ++i) {
      // [lane 0 of u[i], of u[i + 4], lane 1 of u[i], of u[i + 4]]: channels i and 4 + i.
      __m512 a = _mm512_shuffle_f32x4(u[i], u[i + 4], _MM_SHUFFLE(1, 0, 1, 0));
      a = _mm512_shuffle_f32x4(a, a, _MM_SHUFFLE(3, 1, 2, 0));
      __m512 b = _mm512_shuffle_f32x4(u[i], u[i + 4], _MM_SHUFFLE(3, 2, 3, 2));
      b = _mm512_shuffle_f32x4(b, b, _MM_SHUFFLE(3, 1, 2, 0));
      const int j = h * 16 + i;
      put(j, _mm512_castps512_ps256(a));
      put(j + 4, _mm512_extractf32x8_ps(a, 1));
      put(j + 8, _mm512_castps512_ps256(b));
      put(j + 12, _mm512_extractf32x8_ps(b, 1));
    }
  }
  return fused;
}

void GemvAvx512(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
                int64_t n, const ActivationParams& act) {
  Gemv<Vec512>(k, a, b, ldb, c, y, n, act);
}

void GemvBlock16Avx512(int64_t k, const float* a, const float* w, int64_t n, float alpha,
                       const float* c, bool c_scalar, float beta, float* y,
                       const ActivationParams& act) {
  GemvBlock16<Vec512>(k, a, w, n, alpha, c, c_scalar, beta, y, act);
}
#endif
}  // namespace kiln::cpu
