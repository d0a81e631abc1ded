// The portable DSP row kernels and the choice of flavour.
#include "backends/dsp/kernels/dsp_row.h"

#include "kernels/cpu_features.h"
#include "backends/dsp/kernels/dsp_row_impl.h"

namespace kiln {

void DspMacRowU8Portable(const uint8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                         int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  DspMacRows(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
}
void DspMacRowI8Portable(const int8_t* x, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                         int64_t rows, int64_t n, int64_t step, int32_t w, int32_t zero) {
  DspMacRows(x, x_stride, acc, acc_stride, rows, n, step, w, zero);
}

void DspDotQ4Portable(const uint8_t* xq, int64_t x_stride, int32_t* acc, int64_t acc_stride,
                      int64_t rows, int64_t n, int64_t step, int32_t w4) {
  int8_t w[4];
  for (int j = 0; j < 4; ++j) w[j] = static_cast<int8_t>(static_cast<uint32_t>(w4) >> (8 * j));
  for (int64_t r = 0; r < rows; ++r) {
    const uint8_t* x = xq + r * x_stride;
    int32_t* a = acc + r * acc_stride;
    for (int64_t i = 0; i < n; ++i) {
      const uint8_t* q = x + 4 * i * step;
      a[i] += q[0] * w[0] + q[1] * w[1] + q[2] * w[2] + q[3] * w[3];
    }
  }
}

namespace {
constexpr DspRowKernels kPortable = {"portable", DspMacRowU8Portable, DspMacRowI8Portable,
                                     DspDotQ4Portable};
#if defined(__x86_64__) || defined(__i386__)
constexpr DspRowKernels kAvx2 = {"avx2", DspMacRowU8Avx2, DspMacRowI8Avx2, DspDotQ4Portable};
constexpr DspRowKernels kAvx512 = {"avx512", DspMacRowU8Avx512, DspMacRowI8Avx512,
                                   DspDotQ4Portable};
constexpr DspRowKernels kAvx512Vnni = {"avx512vnni", DspMacRowU8Avx512, DspMacRowI8Avx512,
                                       DspDotQ4Avx512Vnni};
#endif
}  // namespace

std::vector<const DspRowKernels*> AvailableDspRowKernels() {
  std::vector<const DspRowKernels*> out = {&kPortable};
#if defined(__x86_64__) || defined(__i386__)
  if (cpu::CpuSupports(Isa::kAvx2)) out.push_back(&kAvx2);
  if (cpu::CpuSupports(Isa::kAvx512)) out.push_back(&kAvx512);
  if (cpu::CpuSupports(Isa::kAvx512Vnni)) out.push_back(&kAvx512Vnni);
#endif
  return out;
}

const DspRowKernels& BestDspRowKernels() {
  static const DspRowKernels* best = AvailableDspRowKernels().back();
  return *best;
}

}  // namespace kiln
