// Planning the quantize pass: node classification, integer regions, quantized values and their
// parameters from the calibration statistics.
#include "compiler/quantize/quant_plan.h"

#include <algorithm>

#include "compiler/quantize/lower_ops.h"
#include "compiler/quantize/lut_builder.h"
#include "compiler/rewrite_utils.h"
#include "ir/activation.h"

namespace kiln::quant {
namespace {

bool IsDynamicF32(const Value& v) { return v.dtype == DType::kF32 && !v.is_constant(); }

bool FoldableActivation(const Node& n, bool wide_only = false) {
  ActivationParams act;
  if (!ReadActivation(n.attrs, &act).ok()) return false;
  if (act.kind == Activation::kNone || act.kind == Activation::kRelu) return true;
  return !wide_only && act.kind == Activation::kClip;
}

bool PlainF32Constant(const Value& v) {
  return v.is_constant() && v.dtype == DType::kF32 && v.layout == Layout::kPlain;
}

bool Named(const Node& n, const std::set<std::string>& names) {
  for (const std::string& s : n.sources) {
    if (names.count(s)) return true;
  }
  return names.count(n.name) > 0;
}

bool KeptFloat(const Node& n, const QuantizeConfig& config) { return Named(n, config.keep_float); }

// A depthwise convolution: one input channel per group, several groups.
bool IsDepthwise(const GraphRewriter& rw, const Node& n) {
  if (n.op != OpType::kFusedConv || n.inputs.size() < 2 || n.inputs[1] == kNoValue) return false;
  const int64_t group = n.attrs.GetInt("group", 1);
  const Shape& w = rw.value(n.inputs[1]).shape;
  return group > 1 && w.size() >= 2 && w[1] == 1;
}

// An --int16 node: named, or a depthwise convolution under "@depthwise".
bool Int16Node(const GraphRewriter& rw, const Node& n, const QuantizeConfig& config) {
  return Named(n, config.int16_nodes) ||
         (config.int16_nodes.count(std::string(kInt16Depthwise)) && IsDepthwise(rw, n));
}

// The kind of `n` before integer regions are decided (links are resolved by the caller).
NodeKind Classify(const GraphRewriter& rw, const Node& n) {
  auto in = [&](size_t i) -> const Value* {
    return i < n.inputs.size() && n.inputs[i] != kNoValue ? &rw.value(n.inputs[i]) : nullptr;
  };
  switch (n.op) {
    case OpType::kFusedConv: {
      if (!in(0) || !IsDynamicF32(*in(0)) || !PlainF32Constant(*in(1))) return NodeKind::kFloat;
      if (in(2) && !PlainF32Constant(*in(2))) return NodeKind::kFloat;
      if (in(3) && !IsDynamicF32(*in(3))) return NodeKind::kFloat;
      return FoldableActivation(n) ? NodeKind::kConv : NodeKind::kFloat;
    }
    case OpType::kFusedGemm: {
      if (!IsDynamicF32(*in(0)) || !PlainF32Constant(*in(1))) return NodeKind::kFloat;
      if (n.attrs.GetInt("transA", 0) != 0 || !(n.attrs.GetFloat("alpha", 1.f) > 0)) {
        return NodeKind::kFloat;
      }
      if (in(2)) {
        const Value& c = *in(2);
        const int64_t out_n = rw.value(n.outputs[0]).shape.back();
        if (!PlainF32Constant(c) || (c.num_elements() != 1 && c.num_elements() != out_n) ||
            (c.shape.size() == 2 && c.shape[1] != out_n)) {
          return NodeKind::kFloat;
        }
      }
      return FoldableActivation(n) ? NodeKind::kGemm : NodeKind::kFloat;
    }
    case OpType::kConcat:
      for (ValueId v : n.inputs) {
        if (v == kNoValue || !IsDynamicF32(rw.value(v))) return NodeKind::kFloat;
      }
      return NodeKind::kConcat;
    case OpType::kAveragePool:
      for (int64_t d : n.attrs.GetInts("dilations")) {
        if (d != 1) return NodeKind::kFloat;
      }
      return IsDynamicF32(*in(0)) ? NodeKind::kPool : NodeKind::kFloat;
    case OpType::kGlobalAveragePool:
      return IsDynamicF32(*in(0)) ? NodeKind::kPool : NodeKind::kFloat;
    default:
      break;
  }
  if (IsPassThroughOp(n)) {
    if (!in(0) || !IsDynamicF32(*in(0))) return NodeKind::kFloat;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (in(i) && !in(i)->is_constant()) return NodeKind::kFloat;
    }
    return NodeKind::kMove;
  }
  if (IsLookupLink(rw, n)) return NodeKind::kLink;  // may become kBinary (see below)
  if ((n.op == OpType::kAdd || n.op == OpType::kMul) && n.inputs.size() == 2) {
    int dynamic = 0;
    for (ValueId v : n.inputs) {
      const Value& x = rw.value(v);
      if (x.dtype != DType::kF32) return NodeKind::kFloat;
      dynamic += !x.is_constant();
    }
    if (dynamic >= 1) return NodeKind::kBinary;  // a non-scalar constant operand
  }
  return NodeKind::kFloat;
}

}  // namespace

std::vector<size_t> DataInputs(NodeKind kind, const Node& n) {
  std::vector<size_t> out;
  switch (kind) {
    case NodeKind::kConv:
      out.push_back(0);
      if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) out.push_back(3);
      break;
    case NodeKind::kGemm:
    case NodeKind::kPool:
    case NodeKind::kMove:
      out.push_back(0);
      break;
    case NodeKind::kBinary:
    case NodeKind::kConcat:
    case NodeKind::kLink:
      for (size_t i = 0; i < n.inputs.size(); ++i) out.push_back(i);
      break;
    case NodeKind::kFloat:
      break;
  }
  return out;
}

Expected<QuantPlan> PlanQuantization(const GraphRewriter& rw, const QuantizeConfig& config,
                                     PassContext& ctx) {
  const Graph& g = rw.graph();
  const size_t nn = g.num_nodes(), nv = g.num_values();
  QuantPlan plan;
  plan.kind.assign(nn, NodeKind::kFloat);
  plan.integer.assign(nn, false);
  plan.quantize.assign(nv, false);
  plan.params.assign(nv, QuantParams{});
  const std::vector<NodeId> order = rw.LiveNodes();

  // 1. Kinds; lookup links are grouped by the one value their chain derives from (`root`).
  std::vector<ValueId> root(nv, kNoValue);
  for (size_t v = 0; v < nv; ++v) root[v] = static_cast<ValueId>(v);
  for (NodeId id : order) {
    const Node& n = rw.node(id);
    NodeKind k = KeptFloat(n, config) ? NodeKind::kFloat : Classify(rw, n);
    if (k == NodeKind::kLink) {
      ValueId r = kNoValue;
      bool single = true;
      for (ValueId in : n.inputs) {
        if (in == kNoValue || rw.value(in).is_constant()) continue;
        const ValueId ri = root[static_cast<size_t>(in)];
        if (r == kNoValue) r = ri;
        single &= ri == r;
      }
      if (single) {
        root[static_cast<size_t>(n.outputs[0])] = r;
      } else {
        k = (n.op == OpType::kAdd || n.op == OpType::kMul) && n.inputs.size() == 2
                ? NodeKind::kBinary
                : NodeKind::kFloat;
      }
    }
    plan.kind[static_cast<size_t>(id)] = k;
  }

  // 2. Integer nodes: compute ops always; moves and links when their input is produced by an
  // integer op (graph order, so producers are decided first).
  auto producer_integer = [&](ValueId v) {
    auto p = rw.Producer(v);
    return p && plan.integer[static_cast<size_t>(*p)];
  };
  for (NodeId id : order) {
    const Node& n = rw.node(id);
    const NodeKind k = plan.kind[static_cast<size_t>(id)];
    bool integer = false;
    switch (k) {
      case NodeKind::kConv: case NodeKind::kGemm: case NodeKind::kBinary:
      case NodeKind::kConcat: case NodeKind::kPool:
        integer = true;
        break;
      case NodeKind::kMove:
        integer = producer_integer(n.inputs[0]);
        break;
      case NodeKind::kLink:
        integer = producer_integer(root[static_cast<size_t>(n.outputs[0])]);
        break;
      case NodeKind::kFloat:
        break;
    }
    plan.integer[static_cast<size_t>(id)] = integer;
  }

  // Moves read by float ops only stay float (their producer may then keep an int32 result):
  // last first, so chains of moves resolve.
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    if (!plan.integer[static_cast<size_t>(*it)] ||
        plan.kind[static_cast<size_t>(*it)] != NodeKind::kMove) {
      continue;
    }
    bool int_user = false;
    for (const auto& u : rw.uses(rw.node(*it).outputs[0])) int_user |= plan.integer[static_cast<size_t>(u.node)];
    if (!int_user) plan.integer[static_cast<size_t>(*it)] = false;
  }

  // Values an --int16 node writes or reads (refined below, once the quantized values are known).
  std::vector<bool> wide16(nv, config.act == ActMode::kSymI16);
  plan.int16_weights.assign(nn, false);
  if (!config.int16_nodes.empty()) {
    for (NodeId id : order) {
      const Node& n = rw.node(id);
      if (!Int16Node(rw, n, config)) continue;
      plan.int16_weights[static_cast<size_t>(id)] = true;
      for (ValueId v : n.inputs) {
        if (v != kNoValue) wide16[static_cast<size_t>(v)] = true;
      }
      for (ValueId v : n.outputs) {
        if (v != kNoValue) wide16[static_cast<size_t>(v)] = true;
      }
    }
  }

  // 3. Quantized values.
  auto is_int = [&](NodeId id) { return plan.integer[static_cast<size_t>(id)]; };
  auto int_link_of_root = [&](NodeId id, ValueId r) {
    return is_int(id) && plan.kind[static_cast<size_t>(id)] == NodeKind::kLink &&
           root[static_cast<size_t>(rw.node(id).outputs[0])] == r;
  };
  for (NodeId id : order) {
    if (!is_int(id)) continue;
    const Node& n = rw.node(id);
    const NodeKind k = plan.kind[static_cast<size_t>(id)];
    const ValueId y = n.outputs[0];
    bool any_int_user = false;
    for (const auto& u : rw.uses(y)) any_int_user |= is_int(u.node);
    if (k == NodeKind::kLink) {
      const ValueId r = root[static_cast<size_t>(y)];
      bool internal = !rw.IsGraphOutput(y) && !rw.uses(y).empty();
      for (const auto& u : rw.uses(y)) internal &= int_link_of_root(u.node, r);
      plan.quantize[static_cast<size_t>(y)] = !internal;
    } else {
      // Only float readers: Conv/Gemm (Relu at most) and global pools keep int32 results
      // (unless they accumulate int16 operands: step 4).
      const bool wide =
          !any_int_user &&
          ((k == NodeKind::kConv && DataInputs(k, n).size() == 1 && FoldableActivation(n, true)) ||
           (k == NodeKind::kGemm && FoldableActivation(n, true)) ||
           n.op == OpType::kGlobalAveragePool);
      plan.quantize[static_cast<size_t>(y)] = !wide;
    }
    // The data inputs are quantized (integer producers quantize them anyway; float ones get
    // a Q at the boundary). A chain's only quantized input is its root.
    if (k == NodeKind::kLink) {
      plan.quantize[static_cast<size_t>(root[static_cast<size_t>(y)])] = true;
    } else {
      for (size_t i : DataInputs(k, n)) {
        const ValueId v = n.inputs[i];
        if (v != kNoValue && IsDynamicF32(rw.value(v))) plan.quantize[static_cast<size_t>(v)] = true;
      }
    }
  }

  // 4. Types: int16 spreads across values that must share parameters (a move's input and
  // output, a lookup chain's root and end, a Concat's lent inputs and its output).
  std::vector<std::pair<ValueId, ValueId>> tied;
  for (NodeId id : order) {
    if (!is_int(id)) continue;
    const Node& n = rw.node(id);
    const NodeKind k = plan.kind[static_cast<size_t>(id)];
    const ValueId y = n.outputs[0];
    if (k == NodeKind::kMove) tied.emplace_back(n.inputs[0], y);
    if (k == NodeKind::kLink && plan.quantize[static_cast<size_t>(y)]) {
      tied.emplace_back(root[static_cast<size_t>(y)], y);
    }
    if (k == NodeKind::kConcat) {
      for (ValueId in : n.inputs) {
        auto p = rw.Producer(in);
        if (!p || !is_int(*p) || plan.kind[static_cast<size_t>(*p)] == NodeKind::kMove) continue;
        if (rw.NumUses(in) == 1) tied.emplace_back(in, y);
      }
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [a, b] : tied) {
      const size_t ia = static_cast<size_t>(a), ib = static_cast<size_t>(b);
      if (wide16[ia] != wide16[ib]) {
        wide16[ia] = wide16[ib] = true;
        changed = true;
      }
    }
  }
  // An op with int16 operands accumulates in int64, which has no int32-accumulator output
  // form: a Conv/Gemm/global pool that kept one (float readers only) quantizes its output.
  for (NodeId id : order) {
    const NodeKind k = plan.kind[static_cast<size_t>(id)];
    if (!is_int(id) || (k != NodeKind::kConv && k != NodeKind::kGemm && k != NodeKind::kPool)) {
      continue;
    }
    const Node& n = rw.node(id);
    if (wide16[static_cast<size_t>(n.inputs[0])] || plan.int16_weights[static_cast<size_t>(id)]) {
      plan.quantize[static_cast<size_t>(n.outputs[0])] = true;
    }
  }
  plan.dtype.assign(nv, ActDType(config.act));
  for (size_t v = 0; v < nv; ++v) {
    if (plan.quantize[v] && wide16[v]) plan.dtype[v] = DType::kI16;
  }

  // 5. Parameters: moves copy their input's; everything else comes from the statistics.
  for (size_t v = 0; v < nv; ++v) {
    if (!plan.quantize[v]) continue;
    auto p = rw.Producer(static_cast<ValueId>(v));
    if (p && is_int(*p) && plan.kind[static_cast<size_t>(*p)] == NodeKind::kMove) continue;
    const std::string& name = g.value(static_cast<ValueId>(v)).name;
    auto it = config.stats->tensors.find(name);
    if (it == config.stats->tensors.end()) {
      return InvalidArgument("no calibration statistics for tensor '" + name +
                             "' (were the statistics made for this model with the same "
                             "options, e.g. --equalize?)");
    }
    const ActMode mode = plan.dtype[v] == DType::kI16 ? ActMode::kSymI16 : config.act;
    const Range r = ChooseRange(it->second, config.range, mode);
    plan.params[v] = ChooseActivationParams(r.lo, r.hi, mode);
  }
  // Concat lends its parameters to inputs only it reads, made by requantizing integer ops.
  for (NodeId id : order) {
    if (!is_int(id) || plan.kind[static_cast<size_t>(id)] != NodeKind::kConcat) continue;
    const QuantParams& out = plan.params[static_cast<size_t>(rw.node(id).outputs[0])];
    for (ValueId in : rw.node(id).inputs) {
      auto p = rw.Producer(in);
      if (!p || !is_int(*p) || plan.kind[static_cast<size_t>(*p)] == NodeKind::kMove) continue;
      if (rw.NumUses(in) != 1) continue;
      plan.params[static_cast<size_t>(in)] = out;
      ctx.Count("concat-shared-params");
    }
  }
  // Moves, in graph order (chains of moves follow their first input).
  for (NodeId id : order) {
    if (!is_int(id) || plan.kind[static_cast<size_t>(id)] != NodeKind::kMove) continue;
    const Node& n = rw.node(id);
    plan.params[static_cast<size_t>(n.outputs[0])] = plan.params[static_cast<size_t>(n.inputs[0])];
  }
  for (size_t v = 0; v < nv; ++v) {
    if (plan.quantize[v] && plan.params[v].empty()) {
      return Internal("no quantization parameters planned for '" + g.value(static_cast<ValueId>(v)).name + "'");
    }
  }
  return plan;
}

}  // namespace kiln::quant
