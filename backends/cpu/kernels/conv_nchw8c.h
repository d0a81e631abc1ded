// Convolutions over NCHW8c activations (ir/layout.h: [N][C/8][H][W][8]) and the compiler's
// Block16O weights: 1x1 stride-1 layers, depthwise layers and the dense ones (3x3, ...), and
// the stems that read plain input. A pixel's 8 channels are one AVX2 vector (half an AVX-512
// one), so a depthwise tap is one FMA without transposes, and a 1x1 layer reads C/8
// contiguous streams and writes O/8 where the plain layout reads C planes and writes O (more
// streams than the hardware prefetchers follow on large planes). The compiler's
// blocked-layout pass decides which values are stored this way, with Reorder nodes where the
// region meets plain ops.
#pragma once

#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

enum class NCHW8cConvKind { kNone, kPointwise, kDepthwise, kDirect, kDense };

// What the NCHW8c kernels run: 1x1 stride-1 unpadded group-1 layers, and depthwise 1x1 (a
// per-channel scale and shift), 3x3 and 5x5 layers with stride 1 or 2 (both axes) and pads of
// at most half the window, both reading NCHW8c; (kDirect) the stems: group-1 layers with at
// most 4 input channels, read plain; and (kDense) the other group-1 layers reading NCHW8c
// (3x3, 5x5, 1x1 stride 2, ...). kDirect and kDense: windows up to 7x7, stride 1 or 2
// (both axes), over a zero-padded copy of the input. Undilated; output channels (and the
// blocked inputs') multiples of 8; any activation (relu / clip on the store, the others over
// each block's output rows); a residual on all but depthwise layers and stems.
NCHW8cConvKind ClassifyNCHW8cConv(const Conv2dGeometry& g, bool has_residual);

// Scratch RunNCHW8cConv needs with `threads` threads: kDirect's and kDense's zero-padded copy
// of one image, or each thread's band of it (none for unpadded layers).
size_t NCHW8cConvScratchBytes(NCHW8cConvKind kind, const Conv2dGeometry& g, int threads);

// Runs one layer, every image of the batch, over the pool (null: inline). y and residual are
// NCHW8c, x too except for kDirect (plain); w Block16O; bias [out_c] or null.
void RunNCHW8cConv(const CpuKernels& k, NCHW8cConvKind kind, const Conv2dGeometry& g,
                   const ActivationParams& act, const float* x, const float* w, const float* bias,
                   const float* residual, float* y, void* scratch, ThreadPool* pool);

}  // namespace kiln::cpu
