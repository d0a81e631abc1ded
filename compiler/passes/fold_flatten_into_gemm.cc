// Pass fold-flatten-into-gemm: a Flatten or Reshape that only turns [d0, ..., dn] into the 2-D
// [d0*...*d(k-1), dk*...*dn] before a FusedGemm is dropped; the FusedGemm reads the original
// tensor as 2-D itself (a_flatten_axis = k), which costs nothing in memory.
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

// The axis k for which `to` is `from` flattened at k, or 0 when there is none.
int64_t FlattenAxis(const Shape& from, const Shape& to) {
  if (to.size() != 2) return 0;
  for (size_t k = 1; k < from.size(); ++k) {
    if (NumElements(Shape(from.begin(), from.begin() + static_cast<int64_t>(k))) == to[0] &&
        NumElements(Shape(from.begin() + static_cast<int64_t>(k), from.end())) == to[1]) {
      return static_cast<int64_t>(k);
    }
  }
  return 0;
}

class FoldFlattenIntoGemmPass : public Pass {
 public:
  std::string_view name() const override { return "fold-flatten-into-gemm"; }
  std::string_view summary() const override {
    return "drop Flatten/Reshape to 2-D before a FusedGemm (read as 2-D in place)";
  }
  int min_opt_level() const override { return 2; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      const Node& g = rw.node(id);
      if (g.op != OpType::kFusedGemm || g.attrs.GetInt("transA", 0) != 0) continue;
      if (g.attrs.GetInt("a_flatten_axis", 1) != 1 || rw.value(g.inputs[0]).shape.size() != 2) {
        continue;
      }
      auto p = rw.Producer(g.inputs[0]);
      if (!p) continue;
      const Node& r = rw.node(*p);
      if (r.op != OpType::kFlatten && r.op != OpType::kReshape) continue;
      const ValueId x = r.inputs[0];
      const int64_t axis = FlattenAxis(rw.value(x).shape, rw.value(g.inputs[0]).shape);
      if (axis == 0) continue;
      const ValueId flat = g.inputs[0];
      rw.node(id).attrs.Set("a_flatten_axis", axis);
      rw.node(id).sources = rw.MergeSources({*p, id});
      rw.SetInput(id, 0, x);
      if (rw.NumUses(flat) == 0) KILN_RETURN_IF_ERROR(rw.EraseNode(*p));
      ctx.Count("folded");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldFlattenIntoGemmPass() {
  return std::make_unique<FoldFlattenIntoGemmPass>();
}

}  // namespace kiln
