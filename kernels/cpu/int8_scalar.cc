// Portable int8 micro-kernels (every CPU; the oracle-checked fallback of the SIMD ones).
#include "kernels/cpu/int8_impl.h"

namespace kiln::cpu {

void QGemmUkernelScalar(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride,
                        int32_t* d, int64_t ldd, int mr, int nr, bool accumulate) {
  Q8GemmPortable<8>(k4, a, b, b_stride, d, ldd, mr, nr, accumulate);
}

void QRequantRowScalar(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                       int64_t n) {
  Q8RequantRowPortable(p, d, col_sum, y, 0, n);
}

void QDwAccumulateScalar(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc) {
  Q8DwPortable(p, x, w, acc, 0);
}

}  // namespace kiln::cpu
