// Winograd F(4x4, 3x3) convolution for 3x3 stride-1 group-1 convolutions, the shared driver of
// every ISA: per block of tile rows, (1) the input transform of every channel into
// V_e (in_c x tiles), (2) 36 GEMMs M_e = U_e V_e with the packed-GEMM micro-kernel (U: the
// offline weights, layout conv_wino43_a8), (3) the output transform with the fused epilogue.
// Each stage is split over the thread pool (channels, e, output channels); 2.25x fewer
// multiplies per output than direct 3x3 on 4x4 tiles... 4x, less the transforms.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

// Whether Winograd F(4x4, 3x3) applies to `g` at all (3x3, stride 1, dilation 1, group 1).
bool WinogradApplies(const Conv2dGeometry& g);

class ConvWinograd {
 public:
  ConvWinograd() = default;
  // `block16` reads the transformed weights as 16-channel blocks ([ceil(O/16)][C][36][16],
  // the proposed compiler layout, see docs/cpu-kernels.md) instead of conv_wino43_a8.
  ConvWinograd(const Conv2dGeometry& g, const CpuKernels& kernels, bool block16 = false);

  size_t ScratchBytes() const;
  // x [N, C, H, W]; packed: conv_wino43_a8; bias [out_c] or null; residual like y or null.
  void Run(const float* x, const float* packed, const float* bias, const float* residual,
           const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const;

 private:
  Conv2dGeometry g_;
  const CpuKernels* kernels_ = nullptr;
  WinoParams p_;
  int64_t tiles_h_ = 0, rows_per_block_ = 1, ld_ = 0;  // ld_: floats per V/M row (tiles)
  int64_t panels_ = 0, kc_ = 0, kblocks_ = 1;
  bool block16_ = false;
};

}  // namespace kiln::cpu
