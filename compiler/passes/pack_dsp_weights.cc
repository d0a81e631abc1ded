// Pass pack-dsp-weights (--target dsp): the weights of every convolution placed on the DSP
// that its 4-channel dot products can run (DspK4Eligible: group 1, i8 weights with zero points
// 0, horizontal stride 1 or 2) are rewritten offline into the DSP's layout kDspK4
// ([O][taps][C/4][4], ir/layout.h), so that the executor DMAs them as they are, where that does
// not cost estimated cycles at the --dsp-scratch size (the 4-channel interleaved copy of the
// input takes scratchpad space, so tiles can get smaller). The CPU reference kernels unpack any
// layout, so a node that falls back still runs.
#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_conv.h"
#include "backends/dsp/kernels/dsp_engine.h"
#include "compiler/passes/passes.h"
#include "ir/rewriter.h"

namespace kiln {
namespace {

// Whether the node's best plan with kDspK4 weights is estimated no slower than with plain ones.
bool QuadsPay(const Graph& graph, const Node& node, const CompileOptions& options) {
  DspConv plain, quads;
  if (!plain.Init(graph, node).ok() || !quads.Init(graph, node).ok() ||
      !quads.UseQuadLayout(graph, node)) {
    return false;
  }
  const uint32_t scratch_bytes = options.backend_options.Get<DspOptions>().scratch_bytes;
  const auto with_plain = plain.Plan(scratch_bytes);
  const auto with_quads = quads.Plan(scratch_bytes);
  if (!with_quads.ok()) return false;
  if (!with_plain.ok()) return true;
  const DspCostModel cost;
  return DspProgramCycles(*with_quads, quads, cost) <= DspProgramCycles(*with_plain, plain, cost);
}

class PackDspWeightsPass : public Pass {
 public:
  std::string_view name() const override { return "pack-dsp-weights"; }
  std::string_view summary() const override {
    return "pack the DSP convolutions' weights into the DSP's layout (--target dsp)";
  }
  int min_opt_level() const override { return 0; }
  bool Enabled(const CompileOptions& options) const override {
    return options.target_backend == kExecutorDsp;
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      const Node& node = rw.node(id);
      if (node.placement != kExecutorDsp || !DspK4Eligible(graph, node)) continue;
      const Value& plain = rw.value(node.inputs[1]);
      if (plain.layout != Layout::kPlain || !QuadsPay(graph, node, ctx.options())) {
        ctx.Count("plain");
        continue;
      }
      KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> packed,
                            PackLayout(Layout::kDspK4, plain.dtype, plain.shape,
                                       plain.constant->data(), plain.constant->size()));
      const std::string name = plain.name + "." + std::string(LayoutName(Layout::kDspK4));
      const Shape shape = plain.shape;
      const QuantParams quant = plain.quant;
      const ValueId p =
          rw.AddConstant(name, plain.dtype, shape, ConstantBytes::FromVector(std::move(packed)));
      rw.value(p).layout = Layout::kDspK4;
      rw.value(p).quant = quant;
      rw.SetInput(id, 1, p);
      ctx.Count("dspk4");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakePackDspWeightsPass() { return std::make_unique<PackDspWeightsPass>(); }

}  // namespace kiln
