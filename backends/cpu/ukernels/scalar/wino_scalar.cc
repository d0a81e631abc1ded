// Portable Winograd F(4x4, 3x3) input and output transforms.
#include "backends/cpu/ukernels/wino_impl.h"

namespace kiln::cpu {
void WinoInputScalar(const WinoParams& p, const float* x, int64_t ty0, int64_t ty1, float* v,
                     int64_t e_stride) {
  WinoInput<VecScalar>(p, x, ty0, ty1, v, e_stride);
}

void WinoOutputScalar(const WinoParams& p, const float* m, int64_t e_stride, float bias,
                      const float* residual, const ActivationParams& act, int64_t ty0, int64_t ty1,
                      float* y) {
  WinoOutput<VecScalar>(p, m, e_stride, bias, residual, act, ty0, ty1, y);
}
}  // namespace kiln::cpu
