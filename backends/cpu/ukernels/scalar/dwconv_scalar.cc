// Portable depthwise convolution kernel (1 output columns per vector).
#include "backends/cpu/ukernels/dwconv_impl.h"

namespace kiln::cpu {
void DwConvScalar(const DwConvParams& p, const float* x, const float* w, const float* bias,
                  const float* residual, float* y, int64_t channels) {
  DwConvChannels<VecScalar>(p, x, w, bias, residual, y, channels);
}
}  // namespace kiln::cpu
