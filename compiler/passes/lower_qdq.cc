// Pass lower-qdq: a quantized graph in QDQ form (QuantizeLinear/DequantizeLinear around float
// ops: what the quantize pass writes, and what ONNX Runtime's and TensorRT's quantizers write)
// becomes integer ops (docs/quantization.md): each DQ -> op -> Q pattern is replaced by the
// op's integer form reading the integer values directly. Q/DQ nodes remain only at the edges
// of float regions. A float graph without Q/DQ nodes is left untouched.
#include "compiler/passes/fold_constants.h"
#include "compiler/passes/passes.h"
#include "compiler/quantize/lower_ops.h"
#include "ir/rewriter.h"

namespace kiln {
namespace {

class LowerQdqPass : public Pass {
 public:
  std::string_view name() const override { return "lower-qdq"; }
  std::string_view summary() const override {
    return "DQ -> op -> Q patterns become integer ops (QConv, QGemm, QAdd, QLookup, ...)";
  }
  int min_opt_level() const override { return 1; }
  Status Run(Graph& graph, PassContext& ctx) override {
    bool any = false;
    for (const Node& n : graph.nodes()) {
      any |= n.op == OpType::kQuantizeLinear || n.op == OpType::kDequantizeLinear;
    }
    if (!any) return Status::Ok();
    GraphRewriter rw(graph);
    // Graph order: a pattern's integer inputs are already lowered when it is reached.
    for (NodeId id : rw.LiveNodes()) {
      if (rw.IsErased(id)) continue;
      const Node& n = rw.node(id);
      Expected<bool> done = false;
      switch (n.op) {
        case OpType::kFusedConv: done = quant::LowerConv(rw, id, ctx); break;
        case OpType::kFusedGemm:
        case OpType::kMatMul: done = quant::LowerGemm(rw, id, ctx); break;
        case OpType::kAdd:
        case OpType::kMul: done = quant::LowerBinary(rw, id, ctx); break;
        case OpType::kConcat: done = quant::LowerConcat(rw, id, ctx); break;
        case OpType::kAveragePool:
        case OpType::kGlobalAveragePool: done = quant::LowerPool(rw, id, ctx); break;
        case OpType::kQuantizeLinear: done = quant::LowerAtQuantize(rw, id, ctx); break;
        case OpType::kCast: done = quant::LowerCastOfAccumulator(rw, id, ctx); break;
        default:
          if (quant::IsPassThroughOp(n)) done = quant::LowerPassThrough(rw, id, ctx);
          break;
      }
      if (!done.ok()) return done.status().WithContext("node '" + rw.node(id).name + "'");
    }
    // Sweep what the rewrites left unread (weight DQs, replaced float ops), last first.
    std::vector<NodeId> live = rw.LiveNodes();
    for (auto it = live.rbegin(); it != live.rend(); ++it) {
      KILN_RETURN_IF_ERROR(quant::EraseIfUnused(rw, *it));
    }
    int64_t float_ops = 0;
    for (NodeId id : rw.LiveNodes()) {
      const Node& n = rw.node(id);
      if (n.op == OpType::kQuantizeLinear) ctx.Count("q-left");
      if (n.op == OpType::kDequantizeLinear) continue;  // counted after the folding below
      const ValueId out = n.outputs.empty() ? kNoValue : n.outputs[0];
      float_ops += out != kNoValue && rw.value(out).dtype == DType::kF32;
    }
    ctx.Count("float-ops-left", float_ops);
    KILN_RETURN_IF_ERROR(rw.Commit());
    return FoldConstantDequantize(graph, ctx);
  }

 private:
  // A DequantizeLinear of a constant left now feeds a float op (a layer kept in float, or one
  // whose pattern did not lower): its weights or bias. Folded into an f32 constant, so that
  // the op reads constant weights, which pack-weights lays out for the fast kernels; left in
  // place, the op ran on the reference kernels at run time, dequantizing its weights per run
  // (ppocr_rec's kept-float 1x1 layers 14.5 ms against 0.94 in the float model). The file
  // stores those weights as f32 (4x their int8 bytes).
  static Status FoldConstantDequantize(Graph& g, PassContext& ctx) {
    int64_t folded = 0;
    for (NodeId id = 0; id < static_cast<NodeId>(g.num_nodes()); ++id) {
      const Node& node = g.node(id);
      if (node.op != OpType::kDequantizeLinear || node.outputs.empty() ||
          node.outputs[0] == kNoValue) {
        continue;
      }
      if (!AllInputsConstant(g, node)) continue;
      KILN_ASSIGN_OR_RETURN(std::vector<ConstantBytes> out, EvaluateConstantNode(g, node));
      Value& v = g.value(node.outputs[0]);
      if (out.size() != 1 || out[0].size() != v.byte_size()) {
        return Internal("lower-qdq: folding '" + node.name + "' gave the wrong size");
      }
      v.constant = std::move(out[0]);
      v.producer = kNoNode;
      g.node(id).outputs[0] = kNoValue;  // dead now
      ++folded;
    }
    if (folded > 0) {
      ctx.Count("dq-folded", folded);
      g.RemoveDeadNodesAndValues();
    }
    for (const Node& node : g.nodes()) {
      if (node.op == OpType::kDequantizeLinear) ctx.Count("dq-left");
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeLowerQdqPass() { return std::make_unique<LowerQdqPass>(); }

}  // namespace kiln
