// Pass fuse-residual: Add(FusedConv(x), r) -- the residual connection of ResNet and
// MobileNetV2 -- becomes FusedConv(x, ..., residual = r), and an activation after the Add
// (ResNet's Relu) moves into the epilogue too: y = act(conv(x) + b + r).
#include "compiler/passes/fusion_util.h"
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"
#include "ir/activation.h"

namespace kiln {
namespace {

// A FusedConv producing `v` with no epilogue yet, read only by the Add.
std::optional<NodeId> ResidualTarget(const GraphRewriter& rw, ValueId v) {
  auto p = rw.Producer(v);
  if (!p || !rw.SoleUser(v)) return std::nullopt;
  const Node& n = rw.node(*p);
  if (n.op != OpType::kFusedConv || n.attrs.Has(kActivationAttr)) return std::nullopt;
  if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) return std::nullopt;
  return p;
}

class FuseResidualPass : public Pass {
 public:
  std::string_view name() const override { return "fuse-residual"; }
  std::string_view summary() const override {
    return "fold the residual Add (and a following activation) into the FusedConv epilogue";
  }
  int min_opt_level() const override { return 2; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      const Node& add = rw.node(id);
      if (add.op != OpType::kAdd) continue;
      const ValueId out = add.outputs[0];
      const Value& y = rw.value(out);
      if (rw.value(add.inputs[0]).shape != y.shape || rw.value(add.inputs[1]).shape != y.shape) {
        continue;  // the residual must have the output's shape (no broadcasting)
      }
      // Prefer the convolution computed last, so the residual already exists when it runs.
      std::optional<NodeId> f;
      size_t slot = 0;
      for (size_t i = 0; i < 2; ++i) {
        auto t = ResidualTarget(rw, add.inputs[i]);
        if (t && (!f || *t > *f)) {
          f = t;
          slot = i;
        }
      }
      if (!f) continue;
      const ValueId residual = add.inputs[1 - slot];
      if (rw.value(residual).is_constant()) continue;  // a bias, not a residual
      const ValueId conv_out = rw.node(*f).outputs[0];
      if (rw.node(*f).inputs.size() < 3) rw.node(*f).inputs.resize(3, kNoValue);
      rw.SetInput(*f, 3, residual);
      rw.node(*f).sources = rw.MergeSources({*f, id});
      rw.SetInput(id, 0, kNoValue);
      rw.SetInput(id, 1, kNoValue);
      rw.ReplaceAllUsesWith(out, conv_out);
      KILN_RETURN_IF_ERROR(rw.EraseNode(id));
      ctx.Count("residual");
      KILN_RETURN_IF_ERROR(AbsorbFollowingActivation(rw, *f, ctx));
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseResidualPass() { return std::make_unique<FuseResidualPass>(); }

}  // namespace kiln
