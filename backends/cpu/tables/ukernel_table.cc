// The per-ISA micro-kernel tables, each offered only where this CPU runs it.
#include "backends/cpu/tables/ukernel_table.h"

#include "kernels/cpu_features.h"

namespace kiln::cpu {
namespace {

constexpr CpuKernels kScalarKernels = {.isa = Isa::kScalar,
                                       .gemm_nr = 8,
                                       .gemm = GemmUkernel8x8Scalar,
                                       .gemv = GemvScalar,
                                       .gemv_block16 = GemvBlock16Scalar,
                                       .activate = ActivateScalar,
                                       .binary = BinaryScalar,
                                       .affine = AffineScalar,
                                       .softmax = SoftmaxScalar,
                                       .dwconv = DwConvScalar,
                                       .im2col = Im2colPanelScalar,
                                       .pool = PoolScalar,
                                       .global_pool = GlobalPoolScalar,
                                       .wino_input = WinoInputScalar,
                                       .wino_output = WinoOutputScalar,
                                       .nchw8c_pointwise = NCHW8cPointwiseScalar,
                                       .nchw8c_depthwise = NCHW8cDepthwiseScalar,
                                       .nchw8c_direct = NCHW8cDirectScalar,
                                       .nchw8c_pool = PoolNCHW8cScalar};
#if defined(__x86_64__) || defined(__i386__)
constexpr CpuKernels kAvx2Kernels = {.isa = Isa::kAvx2,
                                     .gemm_nr = 24,
                                     .gemm = GemmUkernel8x24Avx2,
                                     .gemv = GemvAvx2,
                                     .gemv_block16 = GemvBlock16Avx2,
                                     .activate = ActivateAvx2,
                                     .binary = BinaryAvx2,
                                     .affine = AffineAvx2,
                                     .softmax = SoftmaxAvx2,
                                     .dwconv = DwConvAvx2,
                                     .im2col = Im2colPanelAvx2,
                                     .pool = PoolAvx2,
                                     .global_pool = GlobalPoolAvx2,
                                     .wino_input = WinoInputAvx2,
                                     .wino_output = WinoOutputAvx2,
                                     .gemm_t = GemmTUkernelAvx2,
                                     .gemm_t_store = GemmTStoreAvx2,
                                     .gemm_t_max_pixels = 64,
                                     .dwconv_lanes = DwConvLanesAvx2,
                                     .dwconv_lanes_stride2_max_w = 56,
                                     .dwconv_lanes_avoid_4k_planes = true,
                                     .stem_conv = StemConvAvx2,
                                     .nchw8c_pointwise = NCHW8cPointwiseAvx2,
                                     .nchw8c_depthwise = NCHW8cDepthwiseAvx2,
                                     .nchw8c_direct = NCHW8cDirectAvx2,
                                     .nchw8c_pool = PoolNCHW8cAvx2};
constexpr CpuKernels kAvx512Kernels = {.isa = Isa::kAvx512,
                                       .gemm_nr = 32,
                                       .gemm = GemmUkernel8x32Avx512,
                                       .gemv = GemvAvx512,
                                       .gemv_block16 = GemvBlock16Avx512,
                                       .activate = ActivateAvx512,
                                       .binary = BinaryAvx512,
                                       .affine = AffineAvx512,
                                       .softmax = SoftmaxAvx512,
                                       .dwconv = DwConvAvx512,
                                       .im2col = Im2colPanelAvx512,
                                       .pool = PoolAvx512,
                                       .global_pool = GlobalPoolAvx512,
                                       .wino_input = WinoInputAvx512,
                                       .wino_output = WinoOutputAvx512,
                                       .gemm_t = GemmTUkernel8x32Avx512,
                                       .gemm_t_store = GemmTStoreAvx512,
                                       .gemm_wide_nr = 48,
                                       .gemm_wide = GemmUkernel8x48Avx512,
                                       .dwconv_lanes = DwConvLanesAvx512,
                                       .dwconv_lanes_stride2_max_w = 32,
                                       .stem_conv = StemConvAvx512,
                                       .stem_conv_stride2 = true,
                                       .nchw8c_pointwise = NCHW8cPointwiseAvx512,
                                       .nchw8c_depthwise = NCHW8cDepthwiseAvx512,
                                       .nchw8c_direct = NCHW8cDirectAvx512,
                                       .nchw8c_pool = PoolNCHW8cAvx512};
#endif

}  // namespace

const CpuKernels* GetCpuKernels(Isa isa) {
  if (!CpuSupports(isa)) return nullptr;
  switch (isa) {
    case Isa::kReference:
    case Isa::kScalar:
      return &kScalarKernels;
#if defined(__x86_64__) || defined(__i386__)
    case Isa::kAvx2:
      return &kAvx2Kernels;
    case Isa::kAvx512:
    case Isa::kAvx512Vnni:
      return &kAvx512Kernels;  // fp32 kernels: VNNI adds nothing
#endif
    default:
      return nullptr;
  }
}

std::vector<const CpuKernels*> AvailableCpuKernels() {
  std::vector<const CpuKernels*> out;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (const CpuKernels* k = GetCpuKernels(isa)) out.push_back(k);
  }
  return out;
}

}  // namespace kiln::cpu
