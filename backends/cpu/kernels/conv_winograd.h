// Winograd F(4x4, 3x3) convolution for 3x3 stride-1 group-1 convolutions, the shared driver of
// every ISA: per block of tile rows, (1) the input transform of every channel into
// V_e (in_c x tiles), (2) 36 GEMMs M_e = U_e V_e with the packed-GEMM micro-kernel (U: the
// offline weights, layout conv_wino43_a8), (3) the output transform with the fused epilogue.
// With several threads either each thread takes whole blocks (where blocks of a few tile rows
// still fill the GEMM's column tiles) or each stage is split over the thread pool (channels,
// e, output channels); 2.25x fewer multiplies per output than direct 3x3 on 4x4 tiles... 4x,
// less the transforms.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

// Whether Winograd F(4x4, 3x3) applies to `g` at all (3x3, stride 1, dilation 1, group 1).
bool WinogradApplies(const Conv2dGeometry& g);

class ConvWinograd {
 public:
  ConvWinograd() = default;
  // `block16` reads the transformed weights as 16-channel blocks ([ceil(O/16)][C][36][16],
  // the proposed compiler layout, see docs/cpu-kernels.md) instead of conv_wino43_a8.
  // `threads`: the most the pool will run it on (each may take whole blocks of tiles).
  ConvWinograd(const Conv2dGeometry& g, const CpuKernels& kernels, bool block16 = false,
               int threads = 1);

  size_t ScratchBytes() const;
  // x [N, C, H, W]; packed: conv_wino43_a8; bias [out_c] or null; residual like y or null.
  void Run(const float* x, const float* packed, const float* bias, const float* residual,
           const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const;

 private:
  // Tile rows [ty0, ty1) of image xn -> yn through the three stages, in v (V then M); each
  // stage split over `pool` when it is not null.
  void RunBlock(const float* xn, const float* packed, const float* bias, const float* rn,
                const ActivationParams& act, float* yn, int64_t ty0, int64_t ty1, float* v,
                ThreadPool* pool) const;

  Conv2dGeometry g_;
  const CpuKernels* kernels_ = nullptr;
  WinoParams p_;
  int64_t tiles_h_ = 0, rows_per_block_ = 1, ld_ = 0;  // ld_: floats per V/M row (tiles)
  int64_t panels_ = 0, kc_ = 0, kblocks_ = 1;
  bool block16_ = false;
  int64_t shares_ = 1;  // > 1: threads take whole blocks (one V + M each in the scratch)
};

}  // namespace kiln::cpu
