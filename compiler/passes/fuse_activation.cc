// Pass fuse-activation: every Conv becomes a FusedConv and every Gemm a FusedGemm (the ops the
// fast kernels implement), and an activation that alone reads its output moves into the
// fused node's epilogue: Relu, Clip (Relu6), LeakyRelu, Sigmoid, HardSigmoid, HardSwish, Tanh,
// and SiLU written as x * Sigmoid(x).
#include <limits>

#include "compiler/passes/fusion_util.h"
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"
#include "ir/activation.h"

namespace kiln {
namespace {

// The activation node `act` applies to its input, or nullopt.
std::optional<ActivationParams> AsActivation(const GraphRewriter& rw, const Node& act) {
  ActivationParams p;
  switch (act.op) {
    case OpType::kRelu: p.kind = Activation::kRelu; break;
    case OpType::kSigmoid: p.kind = Activation::kSigmoid; break;
    case OpType::kTanh: p.kind = Activation::kTanh; break;
    case OpType::kHardSwish: p.kind = Activation::kHardSwish; break;
    case OpType::kLeakyRelu:
      p.kind = Activation::kLeakyRelu;
      p.alpha = act.attrs.GetFloat("alpha", 0.01f);
      break;
    case OpType::kHardSigmoid:
      p.kind = Activation::kHardSigmoid;
      p.alpha = act.attrs.GetFloat("alpha", 0.2f);
      p.beta = act.attrs.GetFloat("beta", 0.5f);
      break;
    case OpType::kClip: {
      p.kind = Activation::kClip;
      p.alpha = -std::numeric_limits<float>::infinity();
      p.beta = std::numeric_limits<float>::infinity();
      for (size_t i = 1; i < 3; ++i) {
        if (act.inputs.size() <= i || act.inputs[i] == kNoValue) continue;
        auto bound = ConstantFloats(rw.value(act.inputs[i]));
        if (!bound || bound->size() != 1) return std::nullopt;
        (i == 1 ? p.alpha : p.beta) = (*bound)[0];
      }
      break;
    }
    default: return std::nullopt;
  }
  return p;
}

bool IsFusedLinear(OpType op) { return op == OpType::kFusedConv || op == OpType::kFusedGemm; }

bool HasNoEpilogue(const Node& n) {
  return !n.attrs.Has(kActivationAttr) && !(n.inputs.size() > 3 && n.inputs[3] != kNoValue);
}

// Moves the activation node `act` (reading `f`'s output) into `f`; `extra` are further nodes
// the pattern consumed (SiLU's Sigmoid). `act`'s output is what users read afterwards.
Status Absorb(GraphRewriter& rw, NodeId f, NodeId act, const ActivationParams& p,
              std::vector<NodeId> extra) {
  std::vector<NodeId> merged = {f};
  merged.insert(merged.end(), extra.begin(), extra.end());
  merged.push_back(act);
  rw.node(f).sources = rw.MergeSources(merged);
  WriteActivation(p, &rw.node(f).attrs);
  const ValueId fused_out = rw.node(f).outputs[0];
  const ValueId act_out = rw.node(act).outputs[0];
  // Drop the pattern's reads of the fused output first, then hand its users over.
  for (NodeId n : extra) {
    for (size_t i = 0; i < rw.node(n).inputs.size(); ++i) rw.SetInput(n, i, kNoValue);
  }
  for (size_t i = 0; i < rw.node(act).inputs.size(); ++i) rw.SetInput(act, i, kNoValue);
  rw.ReplaceAllUsesWith(act_out, fused_out);
  for (NodeId n : extra) KILN_RETURN_IF_ERROR(rw.EraseNode(n));
  return rw.EraseNode(act);
}

class FuseActivationPass : public Pass {
 public:
  std::string_view name() const override { return "fuse-activation"; }
  std::string_view summary() const override {
    return "Conv/Gemm -> FusedConv/FusedGemm with the following activation in the epilogue";
  }
  int min_opt_level() const override { return 2; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      Node& n = rw.node(id);
      if (n.op == OpType::kConv) {
        n.op = OpType::kFusedConv;
        ctx.Count("conv");
      } else if (n.op == OpType::kGemm) {
        n.op = OpType::kFusedGemm;
        ctx.Count("gemm");
      }
    }
    for (NodeId id : rw.LiveNodes()) {
      if (rw.IsErased(id) || !IsFusedLinear(rw.node(id).op) || !HasNoEpilogue(rw.node(id))) {
        continue;
      }
      KILN_RETURN_IF_ERROR(AbsorbFollowingActivation(rw, id, ctx));
    }
    return rw.Commit();
  }

  // Shared with fuse-residual: absorbs the activation reading `f`'s output, if any.
  static Status AbsorbFollowingActivation(GraphRewriter& rw, NodeId f, PassContext& ctx) {
    const ValueId y = rw.node(f).outputs[0];
    const bool for_int8 = ctx.options().quantize != nullptr;
    if (auto user = rw.SoleUser(y)) {
      if (auto p = FusableActivation(rw, *user, y, ctx)) {
        ctx.Count(std::string(ActivationName(p->kind)));
        return Absorb(rw, f, *user, *p, {});
      }
      return Status::Ok();
    }
    // SiLU: y feeds exactly a Sigmoid s and a Mul m(y, s), and s feeds only m.
    if (for_int8 || rw.uses(y).size() != 2 || rw.IsGraphOutput(y)) return Status::Ok();
    NodeId s = kNoNode, m = kNoNode;
    for (const auto& u : rw.uses(y)) {
      const OpType op = rw.node(u.node).op;
      if (op == OpType::kSigmoid) s = u.node;
      if (op == OpType::kMul) m = u.node;
    }
    if (s == kNoNode || m == kNoNode) return Status::Ok();
    const ValueId sig = rw.node(s).outputs[0];
    const auto& mul_in = rw.node(m).inputs;
    const bool pattern = rw.SoleUser(sig) == m &&
                         ((mul_in[0] == y && mul_in[1] == sig) || (mul_in[0] == sig && mul_in[1] == y));
    if (!pattern) return Status::Ok();
    ctx.Count("silu");
    return Absorb(rw, f, m, {Activation::kSilu, 0.f, 0.f}, {s});
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFuseActivationPass() { return std::make_unique<FuseActivationPass>(); }

std::optional<ActivationParams> FusableActivation(const GraphRewriter& rw, NodeId act,
                                                  ValueId y, const PassContext& ctx) {
  const Node& n = rw.node(act);
  auto p = AsActivation(rw, n);
  if (!p || n.inputs[0] != y) return std::nullopt;
  // Compiling for int8, only activations an output range absorbs are fused: the others
  // become lookup tables on their own quantized input (docs/quantization.md).
  if (ctx.options().quantize != nullptr && p->kind != Activation::kRelu &&
      p->kind != Activation::kClip) {
    return std::nullopt;
  }
  return p;
}

// Used by fuse_residual.cc.
Status AbsorbFollowingActivation(GraphRewriter& rw, NodeId f, PassContext& ctx) {
  return FuseActivationPass::AbsorbFollowingActivation(rw, f, ctx);
}

}  // namespace kiln
