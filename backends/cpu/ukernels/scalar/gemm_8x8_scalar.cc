// Portable GEMM micro-kernel (plain C++, baseline ISA): an 8-row panel as two 4 x 8 slices;
// consumes the same packed panels as the SIMD kernels.
#include "backends/cpu/ukernels/gemm_impl.h"

namespace kiln::cpu {

void GemmUkernel8x8Scalar(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                          float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  GemmUkernel<VecScalar, 4, 8>(k, a, lda, b, ldb, c, ldc, mr, nr, flags, ep);
}

void GemvScalar(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
                int64_t n, const ActivationParams& act) {
  Gemv<VecScalar>(k, a, b, ldb, c, y, n, act);
}

void GemvBlock16Scalar(int64_t k, const float* a, const float* w, int64_t n, float alpha,
                       const float* c, bool c_scalar, float beta, float* y,
                       const ActivationParams& act) {
  GemvBlock16<VecScalar>(k, a, w, n, alpha, c, c_scalar, beta, y, act);
}
}  // namespace kiln::cpu
