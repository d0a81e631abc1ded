// AVX2+FMA depthwise convolution kernel (8 output columns per vector).
#include "backends/cpu/ukernels/dwconv_impl.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)
void DwConvAvx2(const DwConvParams& p, const float* x, const float* w, const float* bias,
                const float* residual, float* y, int64_t channels) {
  DwConvChannels<Vec256>(p, x, w, bias, residual, y, channels);
}
#endif
}  // namespace kiln::cpu
