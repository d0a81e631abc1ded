// FusedConv over NCHW8c activations (conv_nchw8c.h) and Block16O weights, bound in place: the
// layers the compiler's blocked-layout pass stores blocked. Portable, AVX2 and AVX-512 flavours
// (the blocks are 8 channels on every ISA; an AVX-512 vector holds two).
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/kernels/conv.h"
#include "backends/cpu/kernels/conv_nchw8c.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "ir/layout.h"
#include "kernels/cpu_features.h"

namespace kiln::cpu {
namespace {

// How the NCHW8c kernels run the node (kNone: they do not), and its geometry.
NCHW8cConvKind Classify(const Graph& graph, const Node& node, Conv2dGeometry* geometry = nullptr) {
  auto g = F32ConvGeometry(graph, node);
  ActivationParams act;  // only checked: the kernels take every activation
  if (!g.ok() || !ReadActivation(node.attrs, &act).ok()) return NCHW8cConvKind::kNone;
  if (geometry) *geometry = *g;
  const bool residual = node.inputs.size() > 3 && node.inputs[3] != kNoValue;
  return ClassifyNCHW8cConv(*g, residual);
}

// Winograd's gain over a direct convolution grows with the channels: its transforms cost in
// proportion to in + out per tile, its products to in x out / 2.25. Where the plain layout
// runs a layer through Winograd and in x out / (in + out) reaches this, the layer stays
// plain (resnet18_rw's 64- and 128-channel 56x56 / 28x28 layers, googlenet_rw's 96 -> 128);
// below it the direct NCHW8c kernel costs 1.1-1.15x Winograd's time (squeezenet's 16 -> 64
// and 32 -> 128 expansions, Zen 5) and saves the two Reorders around the layer.
constexpr int64_t kWinogradKeepsChannels = 30;

bool WinogradKeeps(const Conv2dGeometry& g) {
  return ChooseConvAlgo(g) == ConvAlgo::kWinograd &&
         g.in_c * g.out_c >= kWinogradKeepsChannels * (g.in_c + g.out_c);
}

// Blocked input: the 1x1, depthwise and dense layers; plain input: the stems.
bool Accepts(const Graph& graph, const Node& node) {
  Conv2dGeometry g;
  const NCHW8cConvKind kind = Classify(graph, node, &g);
  if (kind == NCHW8cConvKind::kDense) return !WinogradKeeps(g);
  return kind == NCHW8cConvKind::kPointwise || kind == NCHW8cConvKind::kDepthwise;
}
bool AcceptsPlainInput(const Graph& graph, const Node& node) {
  return Classify(graph, node) == NCHW8cConvKind::kDirect;
}

class FusedConvNCHW8c : public Kernel {
 public:
  explicit FusedConvNCHW8c(Isa isa) : isa_(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    kind_ = Classify(ctx.graph(), ctx.node(), &geometry_);
    const Layout x_layout = kind_ == NCHW8cConvKind::kDirect ? Layout::kPlain : Layout::kNCHW8c;
    // ([N, C, 1, 1] inputs have the same bytes in both layouts.)
    if (ctx.input(1).layout != Layout::kBlock16O ||
        !LayoutsShareBytes(ctx.input(0).layout, x_layout, ctx.input(0).shape) ||
        ctx.output(0).layout != Layout::kNCHW8c) {
      return Internal("NCHW8c FusedConv bound to X in " +
                      std::string(LayoutName(ctx.input(0).layout)) + ", W in " +
                      std::string(LayoutName(ctx.input(1).layout)) + ", Y in " +
                      std::string(LayoutName(ctx.output(0).layout)));
    }
    if (kind_ == NCHW8cConvKind::kNone) return Internal("not an NCHW8c convolution");
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    if (!kernels_->nchw8c_pointwise || !kernels_->nchw8c_depthwise || !kernels_->nchw8c_direct) {
      return Internal("no NCHW8c micro-kernels for " + std::string(IsaName(isa_)));
    }
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

  size_t ScratchBytes() const override {
    return NCHW8cConvScratchBytes(kind_, geometry_, pool_ ? pool_->num_threads() : 1);
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    const float* bias = inputs.size() > 2 ? inputs[2].as<const float>() : nullptr;
    const float* residual = inputs.size() > 3 ? inputs[3].as<const float>() : nullptr;
    RunNCHW8cConv(*kernels_, kind_, geometry_, act_, inputs[0].as<const float>(),
                  inputs[1].as<const float>(), bias, residual, outputs[0].as<float>(), scratch,
                  pool_);
    return Status::Ok();
  }

 private:
  Isa isa_;
  NCHW8cConvKind kind_ = NCHW8cConvKind::kNone;
  Conv2dGeometry geometry_;
  ActivationParams act_;
  const CpuKernels* kernels_ = nullptr;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterFusedConvNCHW8c(KernelRegistry& r) {
  KernelTraits traits;
  traits.accepts = Accepts;
  traits.packing = WeightPacking{1, Layout::kBlock16O};
  traits.data_layout = Layout::kNCHW8c;
  KernelTraits plain_input = traits;
  plain_input.accepts = AcceptsPlainInput;
  plain_input.data_layout = Layout::kPlain;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    for (const KernelTraits& t : {traits, plain_input}) {
      r.Register(
          KernelKey{OpType::kFusedConv, kExecutorCpu, DType::kF32, Layout::kNCHW8c, isa},
          [isa] { return std::make_unique<FusedConvNCHW8c>(isa); }, t);
    }
  }
}

}  // namespace kiln::cpu
