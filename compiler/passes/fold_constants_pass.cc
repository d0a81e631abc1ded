// Pass fold-constants: shape propagation and constant folding (compiler/passes/
// fold_constants.h), which also folds PyTorch's Shape -> Gather -> Concat -> Unsqueeze chains
// because Shape of a static shape is itself a constant.
#include "compiler/passes/fold_constants.h"
#include "compiler/passes/passes.h"

namespace kiln {
namespace {

class FoldConstantsPass : public Pass {
 public:
  std::string_view name() const override { return "fold-constants"; }
  std::string_view summary() const override {
    return "propagate static shapes and evaluate nodes whose inputs are all constant";
  }
  int min_opt_level() const override { return 0; }
  Status Run(Graph& graph, PassContext& ctx) override {
    FoldConstantsStats stats;
    KILN_RETURN_IF_ERROR(PropagateShapesAndFold(graph, &stats));
    ctx.Count("folded", stats.nodes_folded);
    ctx.Count("removed", stats.nodes_removed);
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldConstantsPass() { return std::make_unique<FoldConstantsPass>(); }

}  // namespace kiln
