// The stem driver of CpuConv: layers with few input channels (RGB stems) as a direct
// convolution with the output channels in the lanes (stem_conv), over a zero-padded copy of the
// input, output rows shared over the pool. Block16O weights, no residual.
#pragma once

#include <cstddef>
#include <cstdint>

#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

// Copies `channels` planes of in_h x in_w into xpad's pad_h x pad_w planes at (pad_top,
// pad_left), zeroing the rest (pad_h >= pad_top + in_h, pad_w >= pad_left + in_w); rows over
// the pool. The stems' input (ConvStem, the NCHW8c stems).
void CopyZeroPadded(const float* x, int64_t channels, int64_t in_h, int64_t in_w, int64_t pad_top,
                    int64_t pad_left, int64_t pad_h, int64_t pad_w, float* xpad, ThreadPool* pool);
// The same for padded rows [row0, row1) of every plane only: xpad holds planes of
// row1 - row0 rows (a thread's band of the padded image), inline.
void CopyZeroPaddedRows(const float* x, int64_t channels, int64_t in_h, int64_t in_w,
                        int64_t pad_top, int64_t pad_left, int64_t pad_w, int64_t row0,
                        int64_t row1, float* xpad);

class ConvStem {
 public:
  ConvStem() = default;
  ConvStem(const Conv2dGeometry& g, const CpuKernels& kernels);

  // Whether `kernels` have the kernel and `g` is a stem: groups 1, at most 4 input channels,
  // no dilation, stride 1 or 2.
  static bool Applies(const Conv2dGeometry& g, const CpuKernels& kernels);

  size_t ScratchBytes() const;
  // x [N, C, H, W]; w16 Block16O; bias [out_c] or null; y [N, out_c, OH, OW].
  void Run(const float* x, const float* w16, const float* bias, const ActivationParams& act,
           float* y, void* scratch, ThreadPool* pool) const;

 private:
  Conv2dGeometry g_;
  const CpuKernels* kernels_ = nullptr;
  StemConvParams p_;
};

}  // namespace kiln::cpu
