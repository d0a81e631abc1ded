// Registration of the optimised CPU kernels (kernels/cpu/<op>_<isa>.cc), listed explicitly.
#pragma once

#include "kernels/kernel_registry.h"

namespace kiln::cpu {

void RegisterFusedConvBlock16Scalar(KernelRegistry& r);  // fused_conv_block16_scalar.cc

}  // namespace kiln::cpu

namespace kiln {
// Every optimised CPU kernel (called by KernelRegistry::Global()).
void RegisterCpuKernels(KernelRegistry& r);
}  // namespace kiln
