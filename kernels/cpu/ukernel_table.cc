// The per-ISA micro-kernel tables, each offered only where this CPU runs it.
#include "kernels/cpu/ukernel_table.h"

#include "kernels/cpu/cpu_features.h"

namespace kiln::cpu {
namespace {

constexpr CpuKernels kScalarKernels = {Isa::kScalar,         8,
                                       GemmUkernel8x8Scalar, GemvScalar,
                                       GemvBlock16Scalar,    ActivateScalar,
                                       BinaryScalar,         AffineScalar,
                                       SoftmaxScalar,        DwConvScalar,
                                       Im2colPanelScalar,    PoolScalar,
                                       GlobalPoolScalar,     WinoInputScalar,
                                       WinoOutputScalar};
#if defined(__x86_64__) || defined(__i386__)
constexpr CpuKernels kAvx2Kernels = {
    Isa::kAvx2,      24,         GemmUkernel8x24Avx2, GemvAvx2,      GemvBlock16Avx2,
    ActivateAvx2,    BinaryAvx2, AffineAvx2,          SoftmaxAvx2,   DwConvAvx2,
    Im2colPanelAvx2, PoolAvx2,   GlobalPoolAvx2,      WinoInputAvx2, WinoOutputAvx2};
constexpr CpuKernels kAvx512Kernels = {
    Isa::kAvx512,           32,           GemmUkernel8x32Avx512, GemvAvx512,      GemvBlock16Avx512,
    ActivateAvx512,         BinaryAvx512, AffineAvx512,          SoftmaxAvx512,   DwConvAvx512,
    Im2colPanelAvx512,      PoolAvx512,   GlobalPoolAvx512,      WinoInputAvx512, WinoOutputAvx512,
    GemmTUkernel8x32Avx512, 48,           GemmUkernel8x48Avx512};
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
