// The explicit list of optimised CPU kernel registrations.
#include "backends/cpu/cpu_kernels.h"

namespace kiln {

void RegisterCpuKernels(KernelRegistry& r) {
  cpu::RegisterFusedConvWinograd(r);
  cpu::RegisterFusedConvBlock16Scalar(r);
  cpu::RegisterFusedConvBlock16Simd(r);
  cpu::RegisterFusedConvNCHW8c(r);
  cpu::RegisterNCHW8cRegionOps(r);
  cpu::RegisterFusedGemmBlock16(r);
  cpu::RegisterCpuConvKernels(r);
  cpu::RegisterCpuPoolKernels(r);
  cpu::RegisterCpuEltwiseKernels(r);
  cpu::RegisterCpuGemmKernels(r);
  cpu::RegisterCpuResizeKernels(r);
  cpu::RegisterQConvInt8(r);
  cpu::RegisterQEltwiseInt8(r);
  cpu::RegisterQLookupInt8(r);
  cpu::RegisterQGemmInt8(r);
  cpu::RegisterQPoolInt8(r);
  cpu::RegisterQGlobalPoolInt8(r);
}

}  // namespace kiln
