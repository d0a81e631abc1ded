// The portable DSP row kernels and the choice of flavour.
#include "kernels/dsp/dsp_row.h"

#include "kernels/cpu/cpu_features.h"
#include "kernels/dsp/dsp_row_impl.h"

namespace kiln {

void DspMacRowU8Portable(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                         int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  DspMacRows(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
}
void DspMacRowI8Portable(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                         int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  DspMacRows(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
}

namespace {
constexpr DspRowKernels kPortable = {"portable", DspMacRowU8Portable, DspMacRowI8Portable};
#if defined(__x86_64__) || defined(__i386__)
constexpr DspRowKernels kAvx2 = {"avx2", DspMacRowU8Avx2, DspMacRowI8Avx2};
constexpr DspRowKernels kAvx512 = {"avx512", DspMacRowU8Avx512, DspMacRowI8Avx512};
#endif
}  // namespace

std::vector<const DspRowKernels*> AvailableDspRowKernels() {
  std::vector<const DspRowKernels*> out = {&kPortable};
#if defined(__x86_64__) || defined(__i386__)
  if (cpu::CpuSupports(Isa::kAvx2)) out.push_back(&kAvx2);
  if (cpu::CpuSupports(Isa::kAvx512)) out.push_back(&kAvx512);
#endif
  return out;
}

const DspRowKernels& BestDspRowKernels() {
  static const DspRowKernels* best = AvailableDspRowKernels().back();
  return *best;
}

}  // namespace kiln
