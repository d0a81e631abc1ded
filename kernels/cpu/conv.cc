// CpuConv: algorithm choice and the depthwise driver (channel planes over the pool).
#include "kernels/cpu/conv.h"

#include <algorithm>

#include "kernels/cpu/conv_packing.h"

namespace kiln::cpu {
namespace {

bool DepthwiseFits(const Conv2dGeometry& g) {
  return g.is_depthwise() && g.dilation_h == 1 && g.dilation_w == 1 &&
         (g.stride_w == 1 || g.stride_w == 2) && g.kernel_h <= 7 && g.kernel_w <= 7 &&
         g.in_w <= kDwConvMaxWidth;
}

}  // namespace

ConvAlgo ChooseConvAlgo(const Conv2dGeometry& g) {
  if (DepthwiseFits(g)) return ConvAlgo::kDepthwise;
  return ConvAlgo::kGemm;
}

std::string_view ConvAlgoName(ConvAlgo algo) {
  switch (algo) {
    case ConvAlgo::kGemm:
      return "gemm";
    case ConvAlgo::kDepthwise:
      return "depthwise";
  }
  return "unknown";
}

std::string_view ConvWeightLayout(ConvAlgo algo) {
  switch (algo) {
    case ConvAlgo::kGemm:
      return kLayoutConvGemmA8;
    case ConvAlgo::kDepthwise:
      return kLayoutOihw;
  }
  return "";
}

CpuConv::CpuConv(const Conv2dGeometry& g, ConvAlgo algo, const CpuKernels& kernels, int threads)
    : g_(g), algo_(algo), kernels_(&kernels) {
  if (algo == ConvAlgo::kGemm) gemm_ = ConvGemm(g, kernels, threads);
}

size_t CpuConv::ScratchBytes() const { return algo_ == ConvAlgo::kGemm ? gemm_.ScratchBytes() : 0; }

void CpuConv::Run(const float* x, const float* weights, const float* bias, const float* residual,
                  const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const {
  if (algo_ == ConvAlgo::kGemm) {
    gemm_.Run(x, weights, bias, residual, act, y, scratch, pool);
    return;
  }
  DwConvParams p;
  p.in_h = g_.in_h;
  p.in_w = g_.in_w;
  p.out_h = g_.out_h;
  p.out_w = g_.out_w;
  p.kernel_h = g_.kernel_h;
  p.kernel_w = g_.kernel_w;
  p.stride_h = g_.stride_h;
  p.stride_w = g_.stride_w;
  p.pad_top = g_.pad_top;
  p.pad_left = g_.pad_left;
  p.act = act;
  const int64_t channels = g_.out_c, in_plane = g_.in_plane(), out_plane = g_.out_plane();
  const int64_t taps = g_.kernel_size();
  const DwConvFn fn = kernels_->dwconv;
  // Shares of whole channel ranges per image: the kernel sets up its per-layer tables once per
  // call, and shares write disjoint output planes.
  auto body = [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e;) {
      const int64_t c = i % channels;
      const int64_t count = std::min(e - i, channels - c);
      fn(p, x + i * in_plane, weights + c * taps, bias ? bias + c : nullptr,
         residual ? residual + i * out_plane : nullptr, y + i * out_plane, count);
      i += count;
    }
  };
  const int64_t planes = g_.batch * channels;
  // Enough planes per share that the pool's hand-off stays small next to the work.
  const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, out_plane * taps / 4));
  if (pool) {
    pool->ParallelFor(planes, body, grain);
  } else {
    body(0, planes);
  }
}

}  // namespace kiln::cpu
