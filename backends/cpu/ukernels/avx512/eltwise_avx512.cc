// AVX-512 elementwise kernels: activations, binary arithmetic, affine, softmax rows.
#include "backends/cpu/ukernels/eltwise_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
void ActivateAvx512(const float* x, float* y, int64_t n, const ActivationParams& act) {
  ActivateArray<Vec512>(x, y, n, act);
}

void BinaryAvx512(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                  float* y, int64_t n) {
  Binary<Vec512>(op, a, a_scalar, b, b_scalar, y, n);
}

void AffineAvx512(const float* x, float scale, float shift, float* y, int64_t n) {
  Affine<Vec512>(x, scale, shift, y, n);
}

void SoftmaxAvx512(const float* x, float* y, int64_t rows, int64_t n, bool log) {
  SoftmaxRows<Vec512>(x, y, rows, n, log);
}
#endif
}  // namespace kiln::cpu
