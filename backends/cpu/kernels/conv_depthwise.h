// The depthwise convolution driver of CpuConv: channel planes over the pool, either through
// the plane kernel (dwconv, output columns in the lanes) or, where the table has it and the
// padded plane fits, in blocks of 16 channels with the channels in the lanes (dwconv_lanes).
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

class ConvDepthwise {
 public:
  ConvDepthwise() = default;
  // `block16o`: weights in Block16O blocks ([c / 16][tap][c % 16]), else [c][tap].
  ConvDepthwise(const Conv2dGeometry& g, const CpuKernels& kernels, int threads, bool block16o);

  // Whether the channels-in-lanes kernel runs `g` (for tests and benchmarks).
  bool lanes() const { return lanes_; }
  size_t ScratchBytes() const;
  void Run(const float* x, const float* weights, const float* bias, const float* residual,
           const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const;

 private:
  void RunPlanes(const DwConvParams& p, const float* x, const float* weights, const float* bias,
                 const float* residual, float* y, ThreadPool* pool) const;
  void RunLanes(const DwConvParams& p, const float* x, const float* weights, const float* bias,
                const float* residual, float* y, float* scratch, ThreadPool* pool) const;

  Conv2dGeometry g_;
  const CpuKernels* kernels_ = nullptr;
  DwConvParams p_;  // the kernels' view of g_ (the activation set per run)
  bool block16o_ = false;
  bool lanes_ = false;
  int shares_ = 1;           // lanes: shares claiming the 16-channel blocks, a tile each
  int64_t tile_floats_ = 0;  // lanes: one share's scratch, rounded to 64 bytes
};

}  // namespace kiln::cpu
