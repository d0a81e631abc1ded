// Registers every CPU fast kernel (all ISA flavours; the session's cap picks one).
#include "kernels/cpu/register.h"

namespace kiln {

void RegisterCpuFastKernels(KernelRegistry& r) {
  cpu::RegisterCpuConvKernels(r);
  cpu::RegisterCpuPoolKernels(r);
  cpu::RegisterCpuEltwiseKernels(r);
  cpu::RegisterCpuGemmKernels(r);
  cpu::RegisterCpuResizeKernels(r);
}

}  // namespace kiln
