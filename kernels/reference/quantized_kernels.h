// Private header of the quantized reference kernels: per-file registration functions called by
// quantized_register.cc.
#pragma once

#include "kernels/kernel_registry.h"

namespace kiln::nn_ref {

void RegisterQConvKernels(KernelRegistry& r);     // qconv.cc
void RegisterQGemmKernels(KernelRegistry& r);     // qgemm.cc
void RegisterQBinaryKernels(KernelRegistry& r);   // qbinary.cc: QAdd, QMul
void RegisterQConcatKernels(KernelRegistry& r);   // qconcat.cc
void RegisterQPoolKernels(KernelRegistry& r);     // qpool.cc: QAveragePool, QGlobalAveragePool
void RegisterQLookupKernels(KernelRegistry& r);   // qlookup.cc

}  // namespace kiln::nn_ref
