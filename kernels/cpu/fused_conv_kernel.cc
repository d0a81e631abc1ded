// FusedConv (y = act(conv(x, W) + b + r)) over the compiler's Block16O weights on the AVX2 and
// AVX-512 kernels: packed GEMM (1x1 direct, im2col otherwise) reading the 16-channel blocks as
// two 8-row panels, and the depthwise kernels. The weights are bound in place (no repacking);
// nodes these paths do not take (f16 weights, grouped convs whose groups split a panel) stay
// with the portable kernel, which reads the same layout.
#include "ir/layout.h"
#include "kernels/cpu/conv.h"
#include "kernels/cpu/cpu_kernel_util.h"
#include "kernels/cpu/cpu_kernels.h"

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

bool Accepts(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue) {
    return false;
  }
  const Value& x = graph.value(node.inputs[0]);
  const Value& w = graph.value(node.inputs[1]);
  if (x.dtype != DType::kF32 || w.dtype != DType::kF32 || x.shape.size() != 4) return false;
  for (size_t i = 2; i < node.inputs.size(); ++i) {
    if (node.inputs[i] != kNoValue && graph.value(node.inputs[i]).dtype != DType::kF32) {
      return false;
    }
  }
  auto g = ResolveConv2d(node.attrs, x.shape, w.shape);
  return g.ok() && Block16Algo(*g).ok();
}

class FusedConvCpu : public Kernel {
 public:
  explicit FusedConvCpu(Isa isa) : isa_(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    if (ctx.input(1).layout != Layout::kBlock16O) {
      return Internal("FusedConv kernel bound to weights not in block16o");
    }
    KILN_ASSIGN_OR_RETURN(geometry_,
                          ResolveConv2d(ctx.attrs(), ctx.input(0).shape, ctx.input(1).shape));
    KILN_ASSIGN_OR_RETURN(const ConvAlgo algo, Block16Algo(geometry_));
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    KILN_ASSIGN_OR_RETURN(const CpuKernels* kernels, KernelsForIsa(isa_));
    const int threads = ctx.thread_pool() ? ctx.thread_pool()->num_threads() : 1;
    conv_ = CpuConv(geometry_, algo, *kernels, threads, ConvWeights::kBlock16O);
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
  Conv2dGeometry geometry_;
  ActivationParams act_;
  CpuConv conv_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterFusedConvBlock16Simd(KernelRegistry& r) {
  KernelTraits traits;
  traits.accepts = Accepts;
  traits.packing = WeightPacking{1, Layout::kBlock16O};
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512}) {
    r.Register(
        KernelKey{OpType::kFusedConv, ExecutorKind::kCpu, DType::kF32, Layout::kPlain, isa},
        [isa] { return std::make_unique<FusedConvCpu>(isa); }, traits);
  }
}

}  // namespace kiln::cpu
