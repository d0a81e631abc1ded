// AVX2 max/average and global pooling.
#include "backends/cpu/ukernels/pool_impl.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)
void PoolAvx2(const PoolParams& p, const float* x, float* y, int64_t planes) {
  Pool<Vec256>(p, x, y, planes);
}

void PoolNCHW8cAvx2(const PoolParams& p, const float* x, float* y, int64_t planes) {
  PoolNCHW8c<Vec256>(p, x, y, planes);
}

void GlobalPoolAvx2(const float* x, float* y, int64_t planes, int64_t size, bool is_max) {
  GlobalPool<Vec256>(x, y, planes, size, is_max);
}
#endif
}  // namespace kiln::cpu
