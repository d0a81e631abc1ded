// Pass place-nodes (--target gpu, --target dsp, any backend's name): every node the target
// backend claims (Backend::Claim, backends/backend.h) is placed on it, the rest on the CPU.
// A backend that places islands by cost (the DSP) keeps an island only where its compute plus
// the hand-offs at its edges beat the CPU (backends/cost_placement.h); views (Reshape,
// Flatten, ...) then stay on the CPU, as they move no bytes once the memory plan elides them
// and so do not split an island. The runtime keeps these placements when the executor is
// present; `kiln inspect` lists the CPU fallbacks with their reasons.
#include "backends/backend_registry.h"
#include "backends/cost_placement.h"
#include "compiler/passes/passes.h"
#include "ir/plan_rules.h"

namespace kiln {
namespace {

class PlaceNodesPass : public Pass {
 public:
  std::string_view name() const override { return "place-nodes"; }
  std::string_view summary() const override {
    return "place nodes on the target backend where it claims them (and, for the DSP, where it "
           "pays), else on the CPU (--target gpu|dsp)";
  }
  int min_opt_level() const override { return 0; }
  bool required() const override { return true; }
  bool Enabled(const CompileOptions& options) const override {
    return options.target_backend != kExecutorCpu;
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    const std::string& target = ctx.options().target_backend;
    const Backend* backend = FindBackend(target);
    if (!backend) {
      return InvalidArgument("target backend '" + target + "': this build has " + BackendNames());
    }
    const BackendOptions& options = ctx.options().backend_options;
    const std::string name(backend->name());
    if (!backend->places_islands_by_cost()) {
      for (size_t n = 0; n < graph.num_nodes(); ++n) {
        Node& node = graph.node(static_cast<NodeId>(n));
        const bool claimed = backend->Claim(graph, node, options).claimed();
        node.placement = claimed ? name : std::string(kExecutorCpu);
        ctx.Count(node.placement);
      }
      return Status::Ok();
    }
    std::vector<bool> views(graph.num_nodes(), false);
    for (size_t n = 0; n < graph.num_nodes(); ++n) {
      views[n] = IsViewOp(graph.node(static_cast<NodeId>(n)).op);
    }
    KILN_ASSIGN_OR_RETURN(CostPlacement placed, PlaceByCost(graph, {name}, options, views));
    for (size_t n = 0; n < graph.num_nodes(); ++n) {
      Node& node = graph.node(static_cast<NodeId>(n));
      node.placement = views[n] ? kExecutorCpu : placed.placement[n];
      ctx.Count(views[n] ? "views" : node.placement);
    }
    for (const PlacementDecision& d : placed.decisions) {
      ctx.Count(name + (d.kept ? "-islands" : "-islands-to-cpu"));
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakePlaceNodesPass() { return std::make_unique<PlaceNodesPass>(); }

}  // namespace kiln
