// im2col micro-panel packer for the avx512 GEMM convolution.
#include "backends/cpu/ukernels/im2col_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
void Im2colPanelAvx512(const Im2colParams& p, const float* xg, int64_t p0, int tn, int nr,
                       int64_t k0, int64_t kl, float* dst) {
  Im2colPanel<Vec512>(p, xg, p0, tn, nr, k0, kl, dst);
}
#endif
}  // namespace kiln::cpu
