// CpuConv: algorithm choice and dispatch to the algorithms' drivers.
#include "backends/cpu/kernels/conv.h"

#include <algorithm>

#include "backends/cpu/kernels/conv_packing.h"

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
// Up to 128 x 192 channels once ConvWinograd kept 28x28 planes in one block (the weights
// streamed once): googlenet_rw's 128 -> 192 layer 1.38x in the model (kiln bench --profile,
// per-op minimum over 5 alternating rounds); 14x14 layers (16 tiles) lost 0.67-0.74x there.
bool WinogradWins(const Conv2dGeometry& g) {
  const int64_t tiles = ((g.out_h + 3) / 4) * ((g.out_w + 3) / 4);
  return tiles > 16 && g.in_c >= 8 && g.out_c >= 8 && g.in_c * g.out_c <= 128 * 192;
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
    : g_(g), algo_(algo) {
  if (algo == ConvAlgo::kGemm) {
    stem_ = weights == ConvWeights::kBlock16O && ConvStem::Applies(g, kernels);
    if (stem_) stem_conv_ = ConvStem(g, kernels);
    transposed_ = !stem_ && weights == ConvWeights::kBlock16O && ConvGemmT::Wins(g, kernels);
    if (transposed_) {
      gemm_t_ = ConvGemmT(g, kernels, threads);
    } else {
      gemm_ = ConvGemm(g, kernels, threads, weights);
    }
  }
  if (algo == ConvAlgo::kWinograd) {
    winograd_ = ConvWinograd(g, kernels, weights == ConvWeights::kWino43Block16, threads);
  }
  if (algo == ConvAlgo::kDepthwise) {
    depthwise_ = ConvDepthwise(g, kernels, threads, weights == ConvWeights::kBlock16O);
  }
}

size_t CpuConv::ScratchBytes() const {
  switch (algo_) {
    case ConvAlgo::kGemm:
      if (stem_) return std::max(stem_conv_.ScratchBytes(), gemm_.ScratchBytes());
      return transposed_ ? gemm_t_.ScratchBytes() : gemm_.ScratchBytes();
    case ConvAlgo::kWinograd:
      return winograd_.ScratchBytes();
    case ConvAlgo::kDepthwise:
      return depthwise_.ScratchBytes();
  }
  return 0;
}

void CpuConv::Run(const float* x, const float* weights, const float* bias, const float* residual,
                  const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const {
  if (algo_ == ConvAlgo::kGemm) {
    if (stem_ && !residual) {
      stem_conv_.Run(x, weights, bias, act, y, scratch, pool);
      return;
    }
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
  depthwise_.Run(x, weights, bias, residual, act, y, scratch, pool);
}

}  // namespace kiln::cpu
