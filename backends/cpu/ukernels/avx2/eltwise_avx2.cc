// AVX2+FMA elementwise kernels: activations, binary arithmetic, affine, softmax rows.
#include "backends/cpu/ukernels/eltwise_impl.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)
void ActivateAvx2(const float* x, float* y, int64_t n, const ActivationParams& act) {
  ActivateArray<Vec256>(x, y, n, act);
}

void BinaryAvx2(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* y,
                int64_t n) {
  Binary<Vec256>(op, a, a_scalar, b, b_scalar, y, n);
}

void AffineAvx2(const float* x, float scale, float shift, float* y, int64_t n) {
  Affine<Vec256>(x, scale, shift, y, n);
}

void SoftmaxAvx2(const float* x, float* y, int64_t rows, int64_t n, bool log) {
  SoftmaxRows<Vec256>(x, y, rows, n, log);
}
#endif
}  // namespace kiln::cpu
