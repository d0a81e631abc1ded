// AVX512 depthwise convolution kernel (16 output columns per vector).
#include "backends/cpu/ukernels/dwconv_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
void DwConvAvx512(const DwConvParams& p, const float* x, const float* w, const float* bias,
                  const float* residual, float* y, int64_t channels) {
  DwConvChannels<Vec512>(p, x, w, bias, residual, y, channels);
}
#endif
}  // namespace kiln::cpu
