// The per-ISA tables of micro-kernels. Drivers (conv_gemm.cc, ...) are ISA-independent and
// call through a CpuKernels table chosen once when a kernel is prepared; a new ISA is a new set
// of <op>_<isa>.cc files plus one table entry in ukernel_table.cc.
#pragma once

#include <vector>

#include "backends/cpu/ukernels/ukernels.h"
#include "kernels/kernel_registry.h"

namespace kiln::cpu {

// One ISA's micro-kernels.
struct CpuKernels {
  Isa isa = Isa::kScalar;
  int gemm_nr = 0;  // columns per GEMM micro-kernel call (B panels are this wide)
  GemmUkernelFn gemm = nullptr;
  GemvFn gemv = nullptr;
  GemvBlock16Fn gemv_block16 = nullptr;
  ActivateFn activate = nullptr;
  BinaryFn binary = nullptr;
  AffineFn affine = nullptr;
  SoftmaxFn softmax = nullptr;
  DwConvFn dwconv = nullptr;
  Im2colPanelFn im2col = nullptr;
  PoolFn pool = nullptr;
  GlobalPoolFn global_pool = nullptr;
  WinoInputFn wino_input = nullptr;
  WinoOutputFn wino_output = nullptr;
  // AVX-512 (8 pixels x 32 channels in 16 zmm accumulators) and AVX2 (the 8 pixels in the
  // lanes, channels in passes of up to 12 accumulators); null elsewhere, where ConvGemm's
  // orientation is used for every plane.
  GemmTUkernelFn gemm_t = nullptr;
  GemmTStoreFn gemm_t_store = nullptr;  // set wherever gemm_t is
  // A wider tile of the same contract for B read in place, rows a plane apart (1x1 layers),
  // where its longer rows of loads per broadcast pay; null where the registers do not hold it
  // (ConvGemm then uses `gemm`). Packed im2col panels keep gemm_nr: the lane tables of the
  // packers hold one 32-bit mask per tile.
  int gemm_wide_nr = 0;
  GemmUkernelFn gemm_wide = nullptr;
  // The transposed tile's choice (ConvGemmT::Wins) on AVX2: > 0 takes planes up to this many
  // pixels with enough channels instead of the AVX-512 table's padding rules (0).
  int64_t gemm_t_max_pixels = 0;
  // Depthwise with 16 channels in the lanes (AVX-512, AVX2); null elsewhere (dwconv takes
  // every layer). Measured per table (ConvDepthwise): the widest input taken at stride 2, and
  // whether planes a multiple of 4 KiB apart stay on dwconv (their 16 streams share L1 sets).
  DwLanesFn dwconv_lanes = nullptr;
  int64_t dwconv_lanes_stride2_max_w = 0;
  bool dwconv_lanes_avoid_4k_planes = false;
  // Direct convolution for layers with few input channels (AVX-512, AVX2); null elsewhere;
  // stride-2 stems too where stem_conv_stride2.
  StemConvFn stem_conv = nullptr;
  bool stem_conv_stride2 = false;
  // NCHW8c layers (conv_nchw8c.h): one 8-channel block per AVX2 vector, two per AVX-512 one
  // (the blocks are 8 wide whatever the ISA, so a file runs on either).
  NCHW8cPointwiseFn nchw8c_pointwise = nullptr;
  NCHW8cDepthwiseFn nchw8c_depthwise = nullptr;
  NCHW8cDirectFn nchw8c_direct = nullptr;
  PoolFn nchw8c_pool = nullptr;  // MaxPool / AveragePool over NCHW8c block planes
};

// The table for `isa`, or null when this build or this CPU cannot run it. kReference maps to
// the portable table (the reference oracle has no micro-kernels of its own).
const CpuKernels* GetCpuKernels(Isa isa);

// Every table this machine can run, portable first (for tests and benchmarks).
std::vector<const CpuKernels*> AvailableCpuKernels();

}  // namespace kiln::cpu
