// Pass remove-identity: Identity, inference-mode Dropout and a Pad by zero on every side pass
// their input through; their users read the input directly.
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

// A Pad whose constant pads are all zero copies its input whatever the mode and value (the
// PyTorch exporter writes one before each AveragePool of densenet's transitions: a full copy
// of the tensor per run).
bool IsZeroPad(const GraphRewriter& rw, const Node& n) {
  if (n.op != OpType::kPad || n.inputs.size() < 2 || n.inputs[1] == kNoValue) return false;
  const auto pads = ConstantInts(rw.value(n.inputs[1]));
  if (!pads) return false;
  for (int64_t p : *pads) {
    if (p != 0) return false;
  }
  return true;
}

// Dropout is the identity unless training_mode is set (or unknown) with a mask in use.
bool IsPassThrough(const GraphRewriter& rw, const Node& n) {
  if (n.op == OpType::kIdentity || IsZeroPad(rw, n)) return true;
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
    return "remove Identity, inference-mode Dropout and Pad by zero";
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
