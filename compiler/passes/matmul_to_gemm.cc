// Pass matmul-to-gemm: a 2-D MatMul with constant weights, and the constant bias Add that
// follows it, become one Gemm (whose weights the fusion and packing passes then handle).
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

class MatMulToGemmPass : public Pass {
 public:
  std::string_view name() const override { return "matmul-to-gemm"; }
  std::string_view summary() const override {
    return "rewrite 2-D MatMul with constant B (+ constant Add) as Gemm";
  }
  int min_opt_level() const override { return 2; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      const Node& mm = rw.node(id);
      if (mm.op != OpType::kMatMul) continue;
      const Value& a = rw.value(mm.inputs[0]);
      const Value& b = rw.value(mm.inputs[1]);
      if (a.shape.size() != 2 || b.shape.size() != 2 || !b.is_constant() ||
          !IsFloat(a.dtype) || b.dtype != a.dtype) {
        continue;
      }
      const int64_t n = b.shape[1];
      Node gemm;
      gemm.name = mm.name;
      gemm.op = OpType::kGemm;
      gemm.opset = mm.opset;
      gemm.inputs = {mm.inputs[0], mm.inputs[1]};
      gemm.placement = mm.placement;
      std::vector<NodeId> replaced = {id};
      ValueId out = mm.outputs[0];
      // A following Add of a constant [N] / [1, N] becomes Gemm's C.
      if (auto user = rw.SoleUser(out); user && rw.node(*user).op == OpType::kAdd) {
        const Node& add = rw.node(*user);
        const ValueId other = add.inputs[0] == out ? add.inputs[1] : add.inputs[0];
        const Value& c = rw.value(other);
        const bool row = (c.shape.size() == 1 && c.shape[0] == n) ||
                         (c.shape.size() == 2 && c.shape[0] == 1 && c.shape[1] == n);
        if (c.is_constant() && c.dtype == a.dtype && row &&
            rw.value(add.outputs[0]).shape == rw.value(out).shape) {
          gemm.inputs.push_back(other);
          replaced.push_back(*user);
          out = add.outputs[0];
        }
      }
      gemm.outputs = {out};
      gemm.sources = rw.MergeSources(replaced);
      // Detach the old nodes' outputs so the new node can take over `out`.
      const NodeId last = replaced.back();
      for (NodeId r : replaced) rw.node(r).outputs.assign(rw.node(r).outputs.size(), kNoValue);
      rw.InsertNode(std::move(gemm), last);
      for (NodeId r : replaced) KILN_RETURN_IF_ERROR(rw.EraseNode(r));
      ctx.Count(replaced.size() == 2 ? "matmul-add" : "matmul");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeMatMulToGemmPass() { return std::make_unique<MatMulToGemmPass>(); }

}  // namespace kiln
