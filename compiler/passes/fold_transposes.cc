// Pass fold-transposes: a Transpose of a Transpose becomes one Transpose with the composed
// permutation, and an identity permutation disappears (so inverse pairs vanish).
#include <numeric>

#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

std::vector<int64_t> Permutation(const GraphRewriter& rw, const Node& n) {
  const size_t rank = rw.value(n.inputs[0]).shape.size();
  std::vector<int64_t> perm = n.attrs.GetInts("perm");
  if (perm.empty()) {  // ONNX default: reverse the dimensions
    perm.resize(rank);
    for (size_t i = 0; i < rank; ++i) perm[i] = static_cast<int64_t>(rank - 1 - i);
  }
  for (int64_t& p : perm) {
    if (p < 0) p += static_cast<int64_t>(rank);
  }
  return perm;
}

bool IsIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

class FoldTransposesPass : public Pass {
 public:
  std::string_view name() const override { return "fold-transposes"; }
  std::string_view summary() const override {
    return "compose Transpose chains; remove identity (inverse-pair) permutations";
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      if (rw.node(id).op != OpType::kTranspose) continue;
      std::vector<int64_t> perm = Permutation(rw, rw.node(id));
      // z = T(T(x, p1), p2) = T(x, c) with c[k] = p1[p2[k]].
      if (auto p = rw.Producer(rw.node(id).inputs[0]);
          p && rw.node(*p).op == OpType::kTranspose) {
        const std::vector<int64_t> inner = Permutation(rw, rw.node(*p));
        std::vector<int64_t> composed(perm.size());
        for (size_t k = 0; k < perm.size(); ++k) composed[k] = inner[static_cast<size_t>(perm[k])];
        perm = composed;
        rw.SetInput(id, 0, rw.node(*p).inputs[0]);
        rw.node(id).attrs.Set("perm", perm);
        rw.node(id).sources = rw.MergeSources({*p, id});
        if (rw.NumUses(rw.node(*p).outputs[0]) == 0) KILN_RETURN_IF_ERROR(rw.EraseNode(*p));
        ctx.Count("composed");
      }
      const ValueId in = rw.node(id).inputs[0];
      const ValueId out = rw.node(id).outputs[0];
      if (IsIdentity(perm) && CanBypass(rw, in, out)) {
        rw.ReplaceAllUsesWith(out, in);
        KILN_RETURN_IF_ERROR(rw.EraseNode(id));
        ctx.Count("removed");
      }
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldTransposesPass() { return std::make_unique<FoldTransposesPass>(); }

}  // namespace kiln
