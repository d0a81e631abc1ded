// The registration functions of the CPU fast kernels, one per op family; register.cc lists
// them (explicit registration: nothing relies on static initialisers).
#pragma once

#include "kernels/kernel_registry.h"

namespace kiln::cpu {

void RegisterCpuConvKernels(KernelRegistry& r);     // conv_kernel.cc
void RegisterCpuPoolKernels(KernelRegistry& r);     // pool_kernel.cc
void RegisterCpuEltwiseKernels(KernelRegistry& r);  // eltwise_kernel.cc
void RegisterCpuGemmKernels(KernelRegistry& r);     // gemm_kernel.cc
void RegisterCpuResizeKernels(KernelRegistry& r);   // resize_kernel.cc

}  // namespace kiln::cpu
