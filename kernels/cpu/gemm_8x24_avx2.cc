// AVX2+FMA GEMM micro-kernel: an 8-row panel as two 4 x 24 slices (12 ymm accumulators, 3 for
// B, 1 broadcast: all 16 registers).
#include "kernels/cpu/gemm_impl.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)

void GemmUkernel8x24Avx2(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                         float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  GemmUkernel<Vec256, 4, 3>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
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
