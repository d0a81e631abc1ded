// The explicit list of optimised CPU kernel registrations.
#include "kernels/cpu/cpu_kernels.h"

namespace kiln {

void RegisterCpuKernels(KernelRegistry& r) { cpu::RegisterFusedConvBlock16Scalar(r); }

}  // namespace kiln
