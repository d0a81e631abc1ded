// im2col micro-panel packer for the scalar GEMM convolution.
#include "backends/cpu/ukernels/im2col_impl.h"

namespace kiln::cpu {
void Im2colPanelScalar(const Im2colParams& p, const float* xg, int64_t p0, int tn, int nr,
                       int64_t k0, int64_t kl, float* dst) {
  Im2colPanel<VecScalar>(p, xg, p0, tn, nr, k0, kl, dst);
}
}  // namespace kiln::cpu
