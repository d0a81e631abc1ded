// FusedConv (y = act(conv(x, W) + b + r)) over the compiler's packed weights, bound in place
// (no repacking): Block16O on the AVX2 and AVX-512 kernels (packed GEMM, 1x1 direct or im2col,
// reading the 16-channel blocks as two 8-row panels; the depthwise kernels), and
// Wino43Block16O (Winograd F(4x4, 3x3)) at every flavour, the portable one included. Block16O
// nodes these paths do not take (f16 weights, grouped convs whose groups split a panel) stay
// with the portable Block16O kernel, which reads the same layout.
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/kernels/conv.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "ir/layout.h"

namespace kiln::cpu {
namespace {

// The algorithm for a FusedConv over Block16O weights: Winograd needs its own transformed
// weights (no such layout yet), so 3x3 stride-1 layers run as GEMM here.
Expected<ConvAlgo> Block16Algo(const Conv2dGeometry& g) {
  const ConvAlgo algo = ChooseConvAlgo(g);
  if (algo == ConvAlgo::kDepthwise) return algo;
  const int64_t ocpg = g.out_c_per_group();
  if (g.groups != 1 && ocpg % kGemmMr != 0) {
    return Unsupported("output channels per group not a multiple of 8");
  }
  return ConvAlgo::kGemm;
}

bool AcceptsBlock16(const Graph& graph, const Node& node) {
  auto g = F32ConvGeometry(graph, node);
  return g.ok() && Block16Algo(*g).ok();
}

// Plain weights (the pack-weights pass asking): where ChooseConvAlgo picks Winograd, the 3x3
// stride-1 group-1 layers where it was measured to win. Weights already in Wino43Block16O (a
// file): wherever Winograd applies, so a file packed under other thresholds still runs fast.
bool AcceptsWinograd(const Graph& graph, const Node& node) {
  auto g = F32ConvGeometry(graph, node);
  if (!g.ok()) return false;
  if (graph.value(node.inputs[1]).layout == Layout::kWino43Block16O) return WinogradApplies(*g);
  return ChooseConvAlgo(*g) == ConvAlgo::kWinograd;
}

class FusedConvCpu : public Kernel {
 public:
  FusedConvCpu(Isa isa, Layout layout) : isa_(isa), layout_(layout) {}

  Status Prepare(const KernelContext& ctx) override {
    if (ctx.input(1).layout != layout_) {
      return Internal("FusedConv kernel for " + std::string(LayoutName(layout_)) +
                      " bound to weights in " + std::string(LayoutName(ctx.input(1).layout)));
    }
    KILN_ASSIGN_OR_RETURN(geometry_,
                          ResolveConv2d(ctx.attrs(), ctx.input(0).shape, ctx.input(1).shape));
    ConvAlgo algo = ConvAlgo::kWinograd;
    ConvWeights weights = ConvWeights::kWino43Block16;
    if (layout_ == Layout::kBlock16O) {
      KILN_ASSIGN_OR_RETURN(algo, Block16Algo(geometry_));
      weights = ConvWeights::kBlock16O;
    } else if (!WinogradApplies(geometry_)) {
      return Internal("Winograd weights on a convolution it does not apply to: " +
                      geometry_.ToString());
    }
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    KILN_ASSIGN_OR_RETURN(const CpuKernels* kernels, KernelsForIsa(isa_));
    const int threads = ctx.thread_pool() ? ctx.thread_pool()->num_threads() : 1;
    conv_ = CpuConv(geometry_, algo, *kernels, threads, weights);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

  size_t ScratchBytes() const override { return conv_.ScratchBytes(); }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    const float* bias = inputs.size() > 2 ? inputs[2].as<const float>() : nullptr;
    const float* residual = inputs.size() > 3 ? inputs[3].as<const float>() : nullptr;
    conv_.Run(inputs[0].as<const float>(), inputs[1].as<const float>(), bias, residual, act_,
              outputs[0].as<float>(), scratch, pool_);
    return Status::Ok();
  }

 private:
  Isa isa_;
  Layout layout_;
  Conv2dGeometry geometry_;
  ActivationParams act_;
  CpuConv conv_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterFusedConvWinograd(KernelRegistry& r) {
  KernelTraits traits;
  traits.accepts = AcceptsWinograd;
  traits.packing = WeightPacking{1, Layout::kWino43Block16O};
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    r.Register(
        KernelKey{OpType::kFusedConv, kExecutorCpu, DType::kF32, Layout::kPlain, isa},
        [isa] { return std::make_unique<FusedConvCpu>(isa, Layout::kWino43Block16O); }, traits);
  }
}

void RegisterFusedConvBlock16Simd(KernelRegistry& r) {
  KernelTraits traits;
  traits.accepts = AcceptsBlock16;
  traits.packing = WeightPacking{1, Layout::kBlock16O};
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512}) {
    r.Register(
        KernelKey{OpType::kFusedConv, kExecutorCpu, DType::kF32, Layout::kPlain, isa},
        [isa] { return std::make_unique<FusedConvCpu>(isa, Layout::kBlock16O); }, traits);
  }
}

}  // namespace kiln::cpu
