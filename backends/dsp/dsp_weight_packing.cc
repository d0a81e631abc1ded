// PackDspWeights: which DSP convolutions gain from kDspK4 weights, and the rewrite.
#include "backends/dsp/dsp_weight_packing.h"

#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_conv.h"
#include "backends/dsp/kernels/dsp_engine.h"

namespace kiln {
namespace {

// Whether the node's best plan with kDspK4 weights is estimated no slower than with plain ones.
bool QuadsPay(const Graph& graph, const Node& node, uint32_t scratch_bytes) {
  DspConv plain, quads;
  if (!plain.Init(graph, node).ok() || !quads.Init(graph, node).ok() ||
      !quads.UseQuadLayout(graph, node)) {
    return false;
  }
  const auto with_plain = plain.Plan(scratch_bytes);
  const auto with_quads = quads.Plan(scratch_bytes);
  if (!with_quads.ok()) return false;
  if (!with_plain.ok()) return true;
  const DspCostModel cost;
  return DspProgramCycles(*with_quads, quads, cost) <= DspProgramCycles(*with_plain, plain, cost);
}

}  // namespace

Status PackDspWeights(WeightPackingContext& ctx) {
  GraphRewriter& rw = ctx.rw;
  const uint32_t scratch_bytes = ctx.options.Get<DspOptions>().scratch_bytes;
  for (NodeId id : rw.LiveNodes()) {
    const Node& node = rw.node(id);
    if (node.placement != kExecutorDsp || !DspK4Eligible(rw.graph(), node)) continue;
    const Value& plain = rw.value(node.inputs[1]);
    if (plain.layout != Layout::kPlain || !QuadsPay(rw.graph(), node, scratch_bytes)) {
      ctx.Count("dsp-plain");
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
  return Status::Ok();
}

}  // namespace kiln
