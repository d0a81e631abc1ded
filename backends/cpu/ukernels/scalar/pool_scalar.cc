// Portable max/average and global pooling.
#include "backends/cpu/ukernels/pool_impl.h"

namespace kiln::cpu {
void PoolScalar(const PoolParams& p, const float* x, float* y, int64_t planes) {
  Pool<VecScalar>(p, x, y, planes);
}

void PoolNCHW8cScalar(const PoolParams& p, const float* x, float* y, int64_t planes) {
  PoolNCHW8c<VecScalar>(p, x, y, planes);
}

void GlobalPoolScalar(const float* x, float* y, int64_t planes, int64_t size, bool is_max) {
  GlobalPool<VecScalar>(x, y, planes, size, is_max);
}
}  // namespace kiln::cpu
