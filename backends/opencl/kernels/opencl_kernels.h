// The OpenCL kernel families, one register function per file (kernels/opencl/<family>.cc),
// listed explicitly by RegisterOpenClKernels.
#pragma once

#include "kernels/kernel_registry.h"

namespace kiln::opencl {

void RegisterOpenClConvKernels(KernelRegistry& r);
void RegisterOpenClLinearKernels(KernelRegistry& r);
void RegisterOpenClPoolKernels(KernelRegistry& r);
void RegisterOpenClEltwiseKernels(KernelRegistry& r);
void RegisterOpenClTensorKernels(KernelRegistry& r);

}  // namespace kiln::opencl
