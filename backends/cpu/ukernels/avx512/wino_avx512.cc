// AVX-512 Winograd F(4x4, 3x3) input and output transforms.
#include "backends/cpu/ukernels/wino_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
void WinoInputAvx512(const WinoParams& p, const float* x, int64_t ty0, int64_t ty1, float* v,
                     int64_t e_stride) {
  WinoInput<Vec512>(p, x, ty0, ty1, v, e_stride);
}

void WinoOutputAvx512(const WinoParams& p, const float* m, int64_t e_stride, float bias,
                      const float* residual, const ActivationParams& act, int64_t ty0, int64_t ty1,
                      float* y) {
  WinoOutput<Vec512>(p, m, e_stride, bias, residual, act, ty0, ty1, y);
}
#endif
}  // namespace kiln::cpu
