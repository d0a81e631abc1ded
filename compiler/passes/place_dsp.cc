// Pass place-dsp (--target dsp): every node the DSP target can run (its op set, a tiling that
// fits CompileOptions::dsp_scratch_bytes) is placed on it ("dsp") unless the cost-aware
// placement (runtime/cost_placement.h) finds its island cheaper on the CPU; the rest on the CPU
// ("cpu"). `kiln compile/quantize --target dsp` then writes the command stream of every "dsp"
// node into the file's DSP section; `kiln inspect --device dsp,cpu` explains each decision.
#include "compiler/passes/passes.h"
#include "ir/plan_rules.h"
#include "runtime/cost_placement.h"

namespace kiln {
namespace {

class PlaceDspPass : public Pass {
 public:
  std::string_view name() const override { return "place-dsp"; }
  std::string_view summary() const override {
    return "place nodes on the DSP where it runs them and it pays, else on the CPU (--target dsp)";
  }
  int min_opt_level() const override { return 0; }
  bool Enabled(const CompileOptions& options) const override { return options.target_dsp; }
  Status Run(Graph& graph, PassContext& ctx) override {
    PlacementCosts costs;
    costs.dsp.scratch_bytes = ctx.options().dsp_scratch_bytes;
    // Views (Reshape, Flatten, ...) move no bytes once the memory plan elides them: they do
    // not split an island.
    std::vector<bool> views(graph.num_nodes(), false);
    for (size_t n = 0; n < graph.num_nodes(); ++n) {
      views[n] = IsViewOp(graph.node(static_cast<NodeId>(n)).op);
    }
    KILN_ASSIGN_OR_RETURN(CostPlacement placed, PlaceByCost(graph, {kExecutorDsp}, costs, views));
    for (size_t n = 0; n < graph.num_nodes(); ++n) {
      Node& node = graph.node(static_cast<NodeId>(n));
      node.placement = views[n] ? kExecutorCpu : placed.placement[n];
      ctx.Count(views[n] ? "views" : node.placement);
    }
    for (const PlacementDecision& d : placed.decisions) {
      ctx.Count(d.kept ? "dsp-islands" : "dsp-islands-to-cpu");
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakePlaceDspPass() { return std::make_unique<PlaceDspPass>(); }

}  // namespace kiln
