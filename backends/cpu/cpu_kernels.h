// Registration of the optimised CPU kernels (kernels/cpu/<op>_<isa>.cc), listed explicitly.
#pragma once

#include "kernels/kernel_registry.h"

namespace kiln::cpu {

// Registered first: at equal flavour the first registration wins, so the pack-weights pass
// writes Winograd weights for the layers Winograd takes.
void RegisterFusedConvWinograd(KernelRegistry& r);       // fused_conv_kernel.cc (every flavour)
void RegisterFusedConvBlock16Scalar(KernelRegistry& r);  // fused_conv_block16_scalar.cc
void RegisterFusedConvBlock16Simd(KernelRegistry& r);    // fused_conv_kernel.cc (avx2, avx512)
void RegisterFusedConvNCHW8c(KernelRegistry& r);   // fused_conv_nchw8c_kernel.cc (every flavour)
void RegisterNCHW8cRegionOps(KernelRegistry& r);   // nchw8c_region_ops_kernel.cc
void RegisterFusedGemmBlock16(KernelRegistry& r);  // fused_gemm_kernel.cc (every flavour)
// Plain ONNX ops (uncompiled graphs) at every CPU flavour with fast kernels.
void RegisterCpuConvKernels(KernelRegistry& r);     // conv_kernel.cc
void RegisterCpuPoolKernels(KernelRegistry& r);     // pool_kernel.cc
void RegisterCpuEltwiseKernels(KernelRegistry& r);  // eltwise_kernel.cc
void RegisterCpuGemmKernels(KernelRegistry& r);     // gemm_kernel.cc
void RegisterCpuResizeKernels(KernelRegistry& r);   // resize_kernel.cc
// int8 (quantized) ops at the portable, AVX2 and AVX-512 VNNI flavours.
void RegisterQConvInt8(KernelRegistry& r);        // qconv_kernel.cc
void RegisterQEltwiseInt8(KernelRegistry& r);     // qeltwise_kernel.cc: QAdd, QMul, QuantizeLinear
void RegisterQGemmInt8(KernelRegistry& r);        // qgemm_kernel.cc
void RegisterQPoolInt8(KernelRegistry& r);        // qpool_kernel.cc: MaxPool, QAveragePool
void RegisterQGlobalPoolInt8(KernelRegistry& r);  // qglobal_pool_kernel.cc: QGlobalAveragePool
void RegisterQLookupInt8(KernelRegistry& r);      // qlookup_kernel.cc: QLookup, QConcat

}  // namespace kiln::cpu

namespace kiln {
// Every optimised CPU kernel (called by KernelRegistry::Global()).
void RegisterCpuKernels(KernelRegistry& r);
}  // namespace kiln
