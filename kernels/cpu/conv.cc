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

// Measured with bench/kiln_cpu_conv_bench (--algo gemm vs winograd), AVX-512, one thread:
// Winograd wins 2.1-2.3x on resnet18's 56x56x64 and 28x28x128 layers and 1.2-1.6x on
// squeezenet's 3x3 expands at 55x55 and 27x27 (49 tiles and more), but loses on 13x13 (16
// tiles: half of each 32-column GEMM tile is padding; 0.37 vs 0.34 ms on 48x192 channels,
// and in a whole model its 4x larger transformed weights come from further away), 1.8x on
// 14x14x256 and 2.9x on 7x7x512, where those weights stream from memory for too few tiles.
bool WinogradWins(const Conv2dGeometry& g) {
  const int64_t tiles = ((g.out_h + 3) / 4) * ((g.out_w + 3) / 4);
  return tiles > 16 && g.in_c >= 8 && g.out_c >= 8 && g.in_c * g.out_c <= 128 * 128;
}

}  // namespace

ConvAlgo ChooseConvAlgo(const Conv2dGeometry& g) {
  if (DepthwiseFits(g)) return ConvAlgo::kDepthwise;
  if (WinogradApplies(g) && WinogradWins(g)) return ConvAlgo::kWinograd;
  return ConvAlgo::kGemm;
}

std::string_view ConvAlgoName(ConvAlgo algo) {
  switch (algo) {
    case ConvAlgo::kGemm:
      return "gemm";
    case ConvAlgo::kDepthwise:
      return "depthwise";
    case ConvAlgo::kWinograd:
      return "winograd";
  }
  return "unknown";
}

std::string_view ConvWeightLayout(ConvAlgo algo) {
  switch (algo) {
    case ConvAlgo::kGemm:
      return kLayoutConvGemmA8;
    case ConvAlgo::kDepthwise:
      return kLayoutOihw;
    case ConvAlgo::kWinograd:
      return kLayoutConvWino43A8;
  }
  return "";
}

CpuConv::CpuConv(const Conv2dGeometry& g, ConvAlgo algo, const CpuKernels& kernels, int threads,
                 ConvWeights weights)
    : g_(g), algo_(algo), kernels_(&kernels), weights_(weights) {
  if (algo == ConvAlgo::kGemm) {
    transposed_ = weights == ConvWeights::kBlock16O && ConvGemmT::Wins(g, kernels);
    if (transposed_) {
      gemm_t_ = ConvGemmT(g, kernels, threads);
    } else {
      gemm_ = ConvGemm(g, kernels, threads, weights);
    }
  }
  if (algo == ConvAlgo::kWinograd) {
    winograd_ = ConvWinograd(g, kernels, weights == ConvWeights::kWino43Block16, threads);
  }
}

size_t CpuConv::ScratchBytes() const {
  switch (algo_) {
    case ConvAlgo::kGemm:
      return transposed_ ? gemm_t_.ScratchBytes() : gemm_.ScratchBytes();
    case ConvAlgo::kWinograd:
      return winograd_.ScratchBytes();
    case ConvAlgo::kDepthwise:
      return 0;
  }
  return 0;
}

void CpuConv::Run(const float* x, const float* weights, const float* bias, const float* residual,
                  const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const {
  if (algo_ == ConvAlgo::kGemm) {
    if (transposed_) {
      gemm_t_.Run(x, weights, bias, residual, act, y, scratch, pool);
      return;
    }
    gemm_.Run(x, weights, bias, residual, act, y, scratch, pool);
    return;
  }
  if (algo_ == ConvAlgo::kWinograd) {
    winograd_.Run(x, weights, bias, residual, act, y, scratch, pool);
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
  // Shares of whole channel ranges per image: the kernel sets up its per-layer tables (the
  // flat small-plane path's lane masks) once per call, and shares write disjoint output planes.
  // Block16O weights are gathered into plain [c][taps] rows for as many channels as the stack
  // buffer holds, so that set-up is not repeated every 16 channels.
  constexpr int64_t kUnpackFloats = 4096;  // 16 KiB: >= 83 channels of a 7x7 window
  auto body = [&](int64_t b, int64_t e) {
    float unpacked[kUnpackFloats];
    for (int64_t i = b; i < e;) {
      const int64_t c = i % channels;
      int64_t count = std::min(e - i, channels - c);
      const float* w = weights + c * taps;
      if (weights_ == ConvWeights::kBlock16O) {
        // Block (ch / 16) holds tap t of channel ch at (ch / 16 * taps + t) * 16 + ch % 16.
        count = std::min(count, kUnpackFloats / taps);
        for (int64_t j = 0; j < count; ++j) {
          const int64_t ch = c + j;
          const float* block = weights + (ch / 16) * taps * 16 + ch % 16;
          for (int64_t t = 0; t < taps; ++t) unpacked[j * taps + t] = block[t * 16];
        }
        w = unpacked;
      }
      fn(p, x + i * in_plane, w, bias ? bias + c : nullptr,
         residual ? residual + i * out_plane : nullptr, y + i * out_plane, count);
      i += count;
    }
  };
  const int64_t planes = g_.batch * channels;
  // One contiguous range of planes per thread: every plane costs the same, and each call sets
  // up its per-layer tables again (the flat path's lane masks take about as long as a few
  // 14x14 planes), so finer shares only repeat that set-up.
  const int64_t threads = pool ? pool->num_threads() : 1;
  const int64_t grain = (planes + threads - 1) / threads;
  if (pool) {
    pool->ParallelFor(planes, body, grain);
  } else {
    body(0, planes);
  }
}

}  // namespace kiln::cpu
