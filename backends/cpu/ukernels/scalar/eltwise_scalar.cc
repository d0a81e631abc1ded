// Portable elementwise kernels: activations, binary arithmetic, affine, softmax rows.
#include "backends/cpu/ukernels/eltwise_impl.h"

namespace kiln::cpu {
void ActivateScalar(const float* x, float* y, int64_t n, const ActivationParams& act) {
  ActivateArray<VecScalar>(x, y, n, act);
}

void BinaryScalar(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                  float* y, int64_t n) {
  Binary<VecScalar>(op, a, a_scalar, b, b_scalar, y, n);
}

void AffineScalar(const float* x, float scale, float shift, float* y, int64_t n) {
  Affine<VecScalar>(x, scale, shift, y, n);
}

void SoftmaxScalar(const float* x, float* y, int64_t rows, int64_t n, bool log) {
  SoftmaxRows<VecScalar>(x, y, rows, n, log);
}
}  // namespace kiln::cpu
