// Portable int8 micro-kernels (every CPU; the oracle-checked fallback of the SIMD ones).
#include "backends/cpu/ukernels/int8_impl.h"

namespace kiln::cpu {

void QGemmUkernelScalar(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride, int32_t* d,
                        int64_t ldd, int mr, int nr, bool accumulate) {
  Q8GemmPortable<8>(k4, a, b, b_stride, d, ldd, mr, nr, accumulate);
}

void QRequantRowScalar(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                       int64_t n) {
  Q8RequantRowPortable(p, d, col_sum, y, 0, n);
}

void QDwAccumulateScalar(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc) {
  Q8DwPortable(p, x, w, acc, 0);
}

void QCentreScalar(const uint8_t* src, int64_t n, int64_t rows, int64_t src_stride, bool is_signed,
                   int32_t zero, int16_t* even, int16_t* odd, int64_t dst_stride) {
  for (int64_t r = 0; r < rows; ++r) {
    Q8CentrePortable(src + r * src_stride, 0, n, is_signed, zero, even + r * dst_stride,
                     odd ? odd + r * dst_stride : nullptr);
  }
}

void QAddScalar(const QAddParams& p, const void* a, const void* b, void* y, int64_t n) {
  Q8AddPortable(p, a, b, y, 0, n);
}

void QuantizeF32Scalar(const float* x, int64_t n, float scale, int32_t zero, QType out, void* y) {
  Q8QuantizePortable(x, 0, n, scale, zero, out, y);
}

void QRequantRowsScalar(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                        const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n) {
  Q8RequantRowsPortable(rows, mr, d, ldd, col_sum, y, ldy, n);
}

void QGemvScalar(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d) {
  Q8GemvPortable(k4, a, x, d);
}

void QMapBytesScalar(const uint8_t* table, const uint8_t* x, uint8_t* y, int64_t n) {
  for (int64_t i = 0; i < n; ++i) y[i] = table[x[i]];
}

void QMulScalarScalar(const QMulParams& p, const uint8_t* a, int32_t b, uint8_t* y, int64_t n) {
  Q8MulScalarPortable(p, a, b, y, 0, n);
}

}  // namespace kiln::cpu
