// The CPU convolution entry point: picks an algorithm from the geometry alone (so the offline
// weight layout does not depend on the ISA that will run it), and runs it with an ISA's
// micro-kernels. Algorithms: packed GEMM (im2col or direct 1x1; over Block16O weights, small
// planes take the transposed GEMM where the ISA has it), depthwise (ConvDepthwise), Winograd
// F(4x4, 3x3).
#pragma once

#include <cstddef>
#include <string_view>

#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_depthwise.h"
#include "backends/cpu/kernels/conv_gemm.h"
#include "backends/cpu/kernels/conv_gemm_t.h"
#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/kernels/conv_stem.h"
#include "backends/cpu/kernels/conv_winograd.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

enum class ConvAlgo { kGemm, kDepthwise, kWinograd };

// ISA-independent choice; the weight layout follows from it (ConvWeightLayout).
ConvAlgo ChooseConvAlgo(const Conv2dGeometry& g);
std::string_view ConvAlgoName(ConvAlgo algo);
// The packed weight layout (conv_packing.h) the algorithm reads.
std::string_view ConvWeightLayout(ConvAlgo algo);

class CpuConv {
 public:
  CpuConv() = default;
  // `weights` says how the weights are stored: the algorithm's own layout (kPanels8:
  // ConvWeightLayout), the compiler's Block16O (kGemm, kDepthwise), or for kWinograd the
  // 16-channel blocks of its transformed weights (kWino43Block16).
  CpuConv(const Conv2dGeometry& g, ConvAlgo algo, const CpuKernels& kernels, int threads,
          ConvWeights weights = ConvWeights::kPanels8);

  ConvAlgo algo() const { return algo_; }
  size_t ScratchBytes() const;
  // x [N, C, H, W]; weights in ConvWeightLayout(algo()); bias [out_c] or null; residual
  // shaped like y or null (added before the activation).
  void Run(const float* x, const float* weights, const float* bias, const float* residual,
           const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const;

 private:
  Conv2dGeometry g_;
  ConvAlgo algo_ = ConvAlgo::kGemm;
  ConvGemm gemm_;
  bool transposed_ = false;  // kGemm over Block16O runs as gemm_t_ (ConvGemmT::Wins)
  ConvGemmT gemm_t_;
  bool stem_ = false;   // kGemm over Block16O with few input channels: stem_conv_ unless a
  ConvStem stem_conv_;  // residual comes (then gemm_)
  ConvWinograd winograd_;
  ConvDepthwise depthwise_;
};

}  // namespace kiln::cpu
