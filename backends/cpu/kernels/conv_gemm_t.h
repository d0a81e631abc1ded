// Convolution as the transposed GEMM, for small output planes over Block16O weights:
//   Y^T (OH*OW x out_c) = B^T (im2col, OH*OW x K) * A^T (K x out_c),
// tiles of 8 pixels x 32 channels (GemmTUkernelFn). A 7x7 plane's 49 pixels fill seven 8-row
// panels (87.5 %) where ConvGemm's 32-column tiles reach 64 columns (77 %), and the channels
// (multiples of 16 in real networks) fill whole tiles. The im2col panels are packed once per
// image into scratch; the threads then split the channel tiles (and their panels, when there
// are few tiles), and each reduction is blocked so a weight slice stays in L1 while the
// panels' slices come from L2.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_gemm.h"
#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

class ConvGemmT {
 public:
  ConvGemmT() = default;
  // Needs groups == 1 and kernels.gemm_t; plans the split for up to `threads` threads.
  ConvGemmT(const Conv2dGeometry& g, const CpuKernels& kernels, int threads);

  // Whether this orientation pads `g`'s GEMM clearly less than ConvGemm's (and the kernels
  // have it): small planes only, where it was measured (bench/kiln_cpu_conv_bench).
  static bool Wins(const Conv2dGeometry& g, const CpuKernels& kernels);

  size_t ScratchBytes() const;
  // As ConvGemm::Run with Block16O weights.
  void Run(const float* x, const float* block16, const float* bias, const float* residual,
           const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const;

 private:
  size_t PhaseBytes() const;  // the stride-2 phase planes at the start of the scratch
  void RunItem(int64_t item, const float* block16, const float* bias, const float* residual,
               const ActivationParams& act, float* y, const float* panels) const;

  Conv2dGeometry g_;
  const CpuKernels* kernels_ = nullptr;
  Im2colParams im2col_;
  ConvLaneTable lanes_;  // the lane table for 8-pixel panels (stride 2: of phase planes), or empty
  int64_t k_ = 0, n_ = 0, m_ = 0;   // reduction, pixels, output channels
  int64_t kc_ = 0;                  // reduction block: a 32-channel weight slice fits in L1
  int64_t panels_ = 0, tiles_ = 0;  // 8-pixel panels, 32-channel tiles
  int64_t psplit_ = 1;              // work items per tile (ranges of its panels)
};

}  // namespace kiln::cpu
