// Pass remove-identity: Identity and inference-mode Dropout pass their input through; their
// users read the input directly.
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

// Dropout is the identity unless training_mode is set (or unknown) with a mask in use.
bool IsPassThrough(const GraphRewriter& rw, const Node& n) {
  if (n.op == OpType::kIdentity) return true;
  if (n.op != OpType::kDropout || !OnlyFirstOutputUsed(rw, n)) return false;
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    const Value& training = rw.value(n.inputs[2]);
    if (!training.is_constant() || training.constant->size() != 1 ||
        training.constant->data()[0] != 0) {
      return false;
    }
  }
  return true;
}

class RemoveIdentityPass : public Pass {
 public:
  std::string_view name() const override { return "remove-identity"; }
  std::string_view summary() const override {
    return "remove Identity and inference-mode Dropout";
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      const Node& n = rw.node(id);
      if (!IsPassThrough(rw, n)) continue;
      const ValueId in = n.inputs[0];
      const ValueId out = n.outputs[0];
      if (!CanBypass(rw, in, out)) continue;
      rw.ReplaceAllUsesWith(out, in);
      KILN_RETURN_IF_ERROR(rw.EraseNode(id));
      ctx.Count("removed");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeRemoveIdentityPass() { return std::make_unique<RemoveIdentityPass>(); }

}  // namespace kiln
