// The per-ISA tables of int8 micro-kernels, chosen once when a kernel is prepared.
#pragma once

#include <vector>

#include "backends/cpu/ukernels/int8_ukernels.h"
#include "kernels/kernel_registry.h"

namespace kiln::cpu {

// One ISA's int8 micro-kernels.
struct Int8Kernels {
  Isa isa = Isa::kScalar;
  int gemm_nr = 0;  // columns per GEMM micro-kernel call
  QGemmUkernelFn gemm = nullptr;
  QRequantRowFn requant_row = nullptr;
  QRequantRowsFn requant_rows = nullptr;
  QGemmRequantFn gemm_requant = nullptr;
  QGemvFn gemv = nullptr;
  QGemmTapsFn gemm_taps = nullptr;
  QGemmTapsRequantFn gemm_taps_requant = nullptr;  // null: gemm_taps, then the rows epilogue
  QDwAccumulateFn dw_accumulate = nullptr;
  QCentreFn centre = nullptr;
  QAddFn add = nullptr;
  QuantizeF32Fn quantize = nullptr;
  QMapBytesFn map_bytes = nullptr;
  QMulScalarFn mul_scalar = nullptr;
  QDwU8Fn dw_u8 = nullptr;  // where the CPU also has AVX-512 VBMI (vpermb builds byte quads)
  QInterleave4Fn interleave4 = nullptr;  // null: the portable (SSE2) version in qconv_gemm.cc
  QDwDirectFn dw_direct = nullptr;       // null: depthwise layers take the other paths
  QDwLanesFn dw_lanes = nullptr;         // null: depthwise layers take the per-channel paths
  int dw_lanes_pixel_bytes = 0;          // dw_lanes' tile bytes per pixel
  bool dw_lanes_tap_pairs = false;       // dw_lanes' weights per pair of taps (QDwLanesFn)
  bool dw_lanes_column_pairs = false;    // dw_lanes runs QDwLanesParams::column_pairs
  // Pointwise layers interleave their columns inside the GEMM's parallel section (one share
  // per thread) on planes up to this many pixels (0: any), else whole planes first.
  int64_t columns_per_share_max_pixels = 0;
};

// The int8 table for `isa` (kAvx512Vnni: vpdpbusd, with dw_u8 where the CPU has VBMI; kAvx2
// and kAvx512: vpmaddwd on widened bytes; kScalar/kReference: portable C++), or null when
// this CPU cannot run it.
const Int8Kernels* GetInt8Kernels(Isa isa);
// Every int8 table this machine runs, portable first (tests).
std::vector<const Int8Kernels*> AvailableInt8Kernels();

}  // namespace kiln::cpu
