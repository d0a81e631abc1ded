// Pass dead-code: drops nodes whose outputs reach no graph output, and unreferenced values.
#include "compiler/passes/passes.h"

namespace kiln {
namespace {

class DeadCodePass : public Pass {
 public:
  std::string_view name() const override { return "dead-code"; }
  std::string_view summary() const override {
    return "remove nodes and constants that no graph output depends on";
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    const size_t nodes = graph.num_nodes();
    const size_t values = graph.num_values();
    graph.RemoveDeadNodesAndValues();
    ctx.Count("nodes-removed", static_cast<int64_t>(nodes - graph.num_nodes()));
    ctx.Count("values-removed", static_cast<int64_t>(values - graph.num_values()));
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeDeadCodePass() { return std::make_unique<DeadCodePass>(); }

}  // namespace kiln
