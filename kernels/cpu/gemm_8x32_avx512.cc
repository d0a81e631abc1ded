// AVX-512 GEMM micro-kernel: 8 rows x 32 columns (16 zmm accumulators).
#include "kernels/cpu/gemm_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)

void GemmUkernel8x32Avx512(int64_t k, const float* a, const float* b, int64_t ldb, float* c,
                           int64_t ldc, int mr, int nr, int flags, const Epilogue& ep) {
  GemmUkernel<Vec512, 8, 2>(k, a, b, ldb, c, ldc, mr, nr, flags, ep);
}

void GemvAvx512(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
                int64_t n, const ActivationParams& act) {
  Gemv<Vec512>(k, a, b, ldb, c, y, n, act);
}
#endif
}  // namespace kiln::cpu
