// The per-ISA int8 micro-kernel tables, each offered only where this CPU runs it.
#include "kernels/cpu/int8_table.h"

#include "kernels/cpu/cpu_features.h"
#include "kernels/cpu/int8_impl.h"

namespace kiln::cpu {
namespace {

// ISAs without their own version of an entry use the portable one (or, for the fused GEMM
// entries, the generic composition over their own GEMM micro-kernel).
constexpr Int8Kernels kScalarInt8 = {Isa::kScalar,        8,
                                     QGemmUkernelScalar,  QRequantRowScalar,
                                     QRequantRowsScalar,  Q8GemmRequantVia<QGemmUkernelScalar>,
                                     QGemvScalar,         Q8GemmTapsVia<QGemmUkernelScalar>,
                                     QDwAccumulateScalar, QCentreScalar,
                                     QAddScalar,          QuantizeF32Scalar};
#if defined(__x86_64__) || defined(__i386__)
constexpr Int8Kernels kAvx2Int8 = {Isa::kAvx2,
                                   16,
                                   QGemmUkernelAvx2,
                                   QRequantRowAvx2,
                                   QRequantRowsAvx2,
                                   QGemmRequantAvx2,
                                   QGemvAvx2,
                                   QGemmTapsAvx2,
                                   QDwAccumulateAvx2,
                                   QCentreAvx2,
                                   QAddAvx2,
                                   QuantizeF32Avx2,
                                   nullptr,
                                   QInterleave4Avx2,
                                   QDwLanesAvx2,
                                   32,
                                   196};
constexpr Int8Kernels kVnniInt8 = {Isa::kAvx512Vnni,
                                   32,
                                   QGemmUkernelAvx512Vnni,
                                   QRequantRowAvx512Vnni,
                                   QRequantRowsAvx512Vnni,
                                   QGemmRequantAvx512Vnni,
                                   QGemvAvx512Vnni,
                                   QGemmTapsAvx512Vnni,
                                   QDwAccumulateAvx512Vnni,
                                   QCentreAvx512Vnni,
                                   QAddAvx512Vnni,
                                   QuantizeF32Avx512Vnni,
                                   nullptr,
                                   QInterleave4Avx512Vnni,
                                   QDwLanesAvx512Vnni,
                                   64};
constexpr Int8Kernels WithVbmi(Int8Kernels k) {
  k.dw_u8 = QDwU8Avx512Vbmi;
  return k;
}
constexpr Int8Kernels kVnniVbmiInt8 = WithVbmi(kVnniInt8);
#endif

}  // namespace

const Int8Kernels* GetInt8Kernels(Isa isa) {
  if (!CpuSupports(isa)) return nullptr;
  switch (isa) {
    case Isa::kReference:
    case Isa::kScalar:
      return &kScalarInt8;
#if defined(__x86_64__) || defined(__i386__)
    case Isa::kAvx2:
    case Isa::kAvx512:  // no int8 dot product without VNNI: the AVX2 kernels
      return &kAvx2Int8;
    case Isa::kAvx512Vnni:
      return GetCpuFeatures().avx512vbmi ? &kVnniVbmiInt8 : &kVnniInt8;
#endif
    default:
      return nullptr;
  }
}

std::vector<const Int8Kernels*> AvailableInt8Kernels() {
  std::vector<const Int8Kernels*> out;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512Vnni}) {
    if (const Int8Kernels* k = GetInt8Kernels(isa)) out.push_back(k);
  }
  return out;
}

}  // namespace kiln::cpu
