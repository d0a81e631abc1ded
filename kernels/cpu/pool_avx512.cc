// AVX-512 max/average and global pooling.
#include "kernels/cpu/pool_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
void PoolAvx512(const PoolParams& p, const float* x, float* y, int64_t planes) {
  Pool<Vec512>(p, x, y, planes);
}

void GlobalPoolAvx512(const float* x, float* y, int64_t planes, int64_t size, bool is_max) {
  GlobalPool<Vec512>(x, y, planes, size, is_max);
}
#endif
}  // namespace kiln::cpu
