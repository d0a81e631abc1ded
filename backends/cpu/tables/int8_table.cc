// The per-ISA int8 micro-kernel tables, each offered only where this CPU runs it.
#include "backends/cpu/tables/int8_table.h"

#include "kernels/cpu_features.h"
#include "backends/cpu/ukernels/int8_impl.h"

namespace kiln::cpu {
namespace {

// ISAs without their own version of an entry use the portable one (or, for the fused GEMM
// entries, the generic composition over their own GEMM micro-kernel).
constexpr Int8Kernels kScalarInt8 = {.isa = Isa::kScalar,
                                     .gemm_nr = 8,
                                     .gemm = QGemmUkernelScalar,
                                     .requant_row = QRequantRowScalar,
                                     .requant_rows = QRequantRowsScalar,
                                     .gemm_requant = Q8GemmRequantVia<QGemmUkernelScalar>,
                                     .gemv = QGemvScalar,
                                     .gemm_taps = Q8GemmTapsVia<QGemmUkernelScalar>,
                                     .dw_accumulate = QDwAccumulateScalar,
                                     .centre = QCentreScalar,
                                     .add = QAddScalar,
                                     .quantize = QuantizeF32Scalar,
                                     .map_bytes = QMapBytesScalar,
                                     .mul_scalar = QMulScalarScalar};
#if defined(__x86_64__) || defined(__i386__)
constexpr Int8Kernels kAvx2Int8 = {.isa = Isa::kAvx2,
                                   .gemm_nr = 16,
                                   .gemm = QGemmUkernelAvx2,
                                   .requant_row = QRequantRowAvx2,
                                   .requant_rows = QRequantRowsAvx2,
                                   .gemm_requant = QGemmRequantAvx2,
                                   .gemv = QGemvAvx2,
                                   .gemm_taps = QGemmTapsAvx2,
                                   .dw_accumulate = QDwAccumulateAvx2,
                                   .centre = QCentreAvx2,
                                   .add = QAddAvx2,
                                   .quantize = QuantizeF32Avx2,
                                   .map_bytes = QMapBytesScalar,
                                   .mul_scalar = QMulScalarScalar,
                                   .interleave4 = QInterleave4Avx2,
                                   .dw_lanes = QDwLanesAvx2,
                                   .dw_lanes_pixel_bytes = 32,
                                   .dw_lanes_tap_pairs = true,
                                   .columns_per_share_max_pixels = 196};
constexpr Int8Kernels kVnniInt8 = {.isa = Isa::kAvx512Vnni,
                                   .gemm_nr = 32,
                                   .gemm = QGemmUkernelAvx512Vnni,
                                   .requant_row = QRequantRowAvx512Vnni,
                                   .requant_rows = QRequantRowsAvx512Vnni,
                                   .gemm_requant = QGemmRequantAvx512Vnni,
                                   .gemv = QGemvAvx512Vnni,
                                   .gemm_taps = QGemmTapsAvx512Vnni,
                                   .gemm_taps_requant = QGemmTapsRequantAvx512Vnni,
                                   .dw_accumulate = QDwAccumulateAvx512Vnni,
                                   .centre = QCentreAvx512Vnni,
                                   .add = QAddAvx512Vnni,
                                   .quantize = QuantizeF32Avx512Vnni,
                                   .map_bytes = QMapBytesScalar,
                                   .mul_scalar = QMulScalarAvx512Vnni,
                                   .interleave4 = QInterleave4Avx512Vnni,
                                   .dw_direct = QDwDirectAvx512Vnni,
                                   .dw_lanes = QDwLanesAvx512Vnni,
                                   .dw_lanes_pixel_bytes = 64,
                                   .dw_lanes_column_pairs = true};
constexpr Int8Kernels WithVbmi(Int8Kernels k) {
  k.dw_u8 = QDwU8Avx512Vbmi;
  k.map_bytes = QMapBytesAvx512Vbmi;
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
