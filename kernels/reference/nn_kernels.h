// Private header of the nn reference kernels: per-file registration functions called by
// nn_register.cc, and small loop helpers the window kernels share.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "kernels/kernel_registry.h"

namespace kiln::nn_ref {

void RegisterConvKernels(KernelRegistry& r);           // conv.cc
void RegisterConvTransposeKernels(KernelRegistry& r);  // conv_transpose.cc
void RegisterGemmKernels(KernelRegistry& r);           // gemm.cc
void RegisterMatMulKernels(KernelRegistry& r);         // matmul.cc
void RegisterBatchNormKernels(KernelRegistry& r);      // batch_norm.cc
void RegisterPoolKernels(KernelRegistry& r);           // pool.cc
void RegisterLrnKernels(KernelRegistry& r);            // lrn.cc
void RegisterInstanceNormKernels(KernelRegistry& r);   // instance_norm.cc
void RegisterLayerNormKernels(KernelRegistry& r);      // layer_norm.cc
void RegisterPadKernels(KernelRegistry& r);            // pad.cc
void RegisterResizeKernels(KernelRegistry& r);         // resize.cc

// Kernels that walk n-D coordinates keep them in fixed arrays so that Run() never allocates.
constexpr size_t kMaxRank = 8;
using Coords = std::array<int64_t, kMaxRank>;

// The window kernels run every spatial rank (1-3) as 3-D: missing leading axes get extent 1.
struct Dims3 {
  int64_t d = 1, h = 1, w = 1;
  int64_t size() const { return d * h * w; }
};
inline Dims3 ToDims3(const std::vector<int64_t>& v, int64_t fill = 1) {
  std::array<int64_t, 3> a = {fill, fill, fill};
  const size_t off = 3 - v.size();
  for (size_t i = 0; i < v.size(); ++i) a[off + i] = v[i];
  return {a[0], a[1], a[2]};
}

// The range [*lo, *hi) of o in [0, count) for which o * stride + offset lies in [0, limit).
// Hoists all bounds checks out of the window loops.
inline void ValidRange(int64_t offset, int64_t stride, int64_t limit, int64_t count, int64_t* lo,
                       int64_t* hi) {
  int64_t l = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  const int64_t last = limit - 1 - offset;  // o * stride <= last
  int64_t h = last < 0 ? 0 : last / stride + 1;
  if (h > count) h = count;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

}  // namespace kiln::nn_ref
