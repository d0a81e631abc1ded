// AVX-512 GEMM micro-kernels: 8 rows x 32 columns (16 zmm accumulators) and, for B read in
// place (1x1 layers), 8 rows x 48 columns (24 accumulators).
#include "kernels/cpu/gemm_impl.h"

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
                            bool accumulate, float* t) {
  if (nb == 2) {
    GemmTTile<Vec512, 2>(k, a, w, block_stride, accumulate, t);
  } else {
    GemmTTile<Vec512, 1>(k, a, w, block_stride, accumulate, t);
  }
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
