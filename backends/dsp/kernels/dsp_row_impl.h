// The body of the DSP row kernels (dsp_row.h), included by each flavour's file.
#pragma once

#include <cstdint>

namespace kiln {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

template <typename T>
inline void DspMacRows(const T* __restrict x, int64_t x_stride, int32_t* __restrict acc,
                       int64_t acc_stride, int64_t rows, int64_t n, int64_t step, int32_t w,
                       int32_t zero) {
  if (step == 1 && x_stride == n && acc_stride == n) {  // contiguous rows (1x1): one long row
    n *= rows;
    rows = 1;
  }
  for (int64_t r = 0; r < rows; ++r, x += x_stride, acc += acc_stride) {
    if (step == 1) {
      for (int64_t i = 0; i < n; ++i) acc[i] += w * (static_cast<int32_t>(x[i]) - zero);
    } else {
      for (int64_t i = 0; i < n; ++i) acc[i] += w * (static_cast<int32_t>(x[i * step]) - zero);
    }
  }
}

}  // namespace
}  // namespace kiln
