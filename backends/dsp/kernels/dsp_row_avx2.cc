// The DSP row kernels compiled for AVX2 (cmake/KilnIsaFlags.cmake), vectorised by the compiler.
#include "backends/dsp/kernels/dsp_row.h"
#include "backends/dsp/kernels/dsp_row_impl.h"

namespace kiln {
#if defined(__AVX2__)
void DspMacRowU8Avx2(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                     int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  DspMacRows(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
}
void DspMacRowI8Avx2(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                     int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  DspMacRows(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
}
#endif
}  // namespace kiln
