// lower-qdq rewrites of the non-linear ops: Add/Mul -> QAdd/QMul, Concat -> Concat (shared
// parameters) or QConcat, average pools -> QAveragePool/QGlobalAveragePool, value-moving ops
// (Reshape, Transpose, MaxPool, nearest Resize, ...) -> the same op on the integer values, and
// at a Q: elementwise chains -> QLookup, DQ -> Q -> QLookup (requantize) or nothing.
#include <cmath>

#include "compiler/quantize/lower_ops.h"
#include "compiler/quantize/lut_builder.h"
#include "compiler/quantize/qdq_utils.h"
#include "compiler/rewrite_utils.h"
#include "quant/quant_math.h"

namespace kiln::quant {
namespace {

ActMode ModeOf(DType t) {
  return t == DType::kU8 ? ActMode::kAsymU8 : t == DType::kI16 ? ActMode::kSymI16 : ActMode::kSymI8;
}

// An operand of QAdd/QMul: an 8-bit DQ, or a float constant quantized here (its own range,
// in the other operand's type).
struct Operand {
  ValueId value = kNoValue;
  QuantParams params;
};
std::optional<Operand> BinaryOperand(GraphRewriter& rw, ValueId v, DType type_hint) {
  if (auto d = ActivationDq(rw, v)) {
    rw.value(d->int_value).quant = d->params;
    return Operand{d->int_value, d->params};
  }
  const Value& c = rw.value(v);
  auto data = ConstantFloats(c);
  if (!data || data->size() <= 1) return std::nullopt;  // scalars: lookup chains
  double lo = 0, hi = 0;
  for (float x : *data) {
    lo = std::min<double>(lo, x);
    hi = std::max<double>(hi, x);
  }
  const QuantParams q = ChooseActivationParams(lo, hi, ModeOf(type_hint));
  std::vector<int64_t> codes(data->size());
  for (size_t i = 0; i < data->size(); ++i) {
    codes[i] = QuantizeValue((*data)[i], q.scales[0], q.zero_points[0], type_hint);
  }
  const Shape shape = c.shape;
  const std::string name = c.name + ".q";
  return Operand{
      AddQuantizedConstant(rw, name, type_hint, shape, CodeBytes(codes, type_hint).data(), q), q};
}

// The Q ending an Add: directly, or through a Relu/Clip (folded into the clamp).
struct QEnd {
  QMatch q;
  ActivationParams act;
  NodeId act_node = kNoNode;
};
std::optional<QEnd> MatchQEnd(const GraphRewriter& rw, ValueId y, bool allow_act) {
  if (auto q = MatchSoleQ(rw, y)) return QEnd{*q, {}, kNoNode};
  if (!allow_act) return std::nullopt;
  auto user = rw.SoleUser(y);
  if (!user) return std::nullopt;
  const Node& a = rw.node(*user);
  ActivationParams act;
  if (a.op == OpType::kRelu) {
    act.kind = Activation::kRelu;
  } else if (a.op == OpType::kClip) {
    act.kind = Activation::kClip;
    act.alpha = -INFINITY;
    act.beta = INFINITY;
    for (size_t i = 1; i < 3 && i < a.inputs.size(); ++i) {
      if (a.inputs[i] == kNoValue) continue;
      auto b = ConstantFloats(rw.value(a.inputs[i]));
      if (!b || b->size() != 1) return std::nullopt;
      (i == 1 ? act.alpha : act.beta) = (*b)[0];
    }
  } else {
    return std::nullopt;
  }
  auto q = MatchSoleQ(rw, a.outputs[0]);
  if (!q) return std::nullopt;
  return QEnd{*q, act, *user};
}

// The replacement `node` (inputs set) takes over the Q's output; the Q, an absorbed activation
// and the float op are erased.
Status Replace(GraphRewriter& rw, Node node, NodeId float_op, const QEnd& end) {
  rw.value(end.q.out).quant = end.q.params;
  InsertReplacement(rw, std::move(node), end.q.node, end.q.out);
  KILN_RETURN_IF_ERROR(rw.EraseNode(end.q.node));
  if (end.act_node != kNoNode) KILN_RETURN_IF_ERROR(rw.EraseNode(end.act_node));
  return float_op == kNoNode ? Status::Ok() : EraseIfUnused(rw, float_op);
}

Node MakeNode(const Node& from, OpType op) {
  Node n;
  n.name = from.name;
  n.op = op;
  n.opset = from.opset;
  n.sources = from.sources;
  return n;
}

// A QLookup of `input` through `table` (output codes, stored in the output's type).
Node LookupNode(GraphRewriter& rw, const std::string& name, ValueId input,
                const std::vector<int64_t>& table, DType out_type,
                const std::vector<std::string>& sources) {
  Node n;
  n.name = name;
  n.op = OpType::kQLookup;
  n.opset = 17;
  n.sources = sources;
  const ValueId t = rw.AddConstant(name + ".table", out_type, {static_cast<int64_t>(table.size())},
                                   ConstantBytes::FromVector(CodeBytes(table, out_type)));
  n.inputs = {input, t};
  return n;
}

}  // namespace

Expected<bool> LowerBinary(GraphRewriter& rw, NodeId id, PassContext& ctx) {
  const Node& f = rw.node(id);
  const bool add = f.op == OpType::kAdd;
  if ((!add && f.op != OpType::kMul) || f.inputs.size() != 2) return false;
  auto end = MatchQEnd(rw, f.outputs[0], add);
  if (!end) return false;
  // The type of a constant operand follows the dynamic one.
  DType hint = end->q.dtype;
  for (ValueId in : f.inputs) {
    if (auto d = ActivationDq(rw, in)) hint = rw.value(d->int_value).dtype;
  }
  if (!ActivationDq(rw, f.inputs[0]) && !ActivationDq(rw, f.inputs[1])) return false;
  auto a = BinaryOperand(rw, rw.node(id).inputs[0], hint);
  if (!a) return false;
  auto b = BinaryOperand(rw, rw.node(id).inputs[1], hint);
  if (!b) return false;
  const double sa = a->params.scales[0], sb = b->params.scales[0], sy = end->q.params.scales[0];
  const int left_shift = QAddLeftShift(rw.value(a->value).dtype == DType::kI16 ||
                                       rw.value(b->value).dtype == DType::kI16);
  std::vector<double> m;
  if (add) {
    const double twice_max = 2.0 * std::max(sa, sb);
    m = {sa / twice_max, sb / twice_max, twice_max / (std::ldexp(1.0, left_shift) * sy)};
  } else {
    m = {sa * sb / sy};
  }
  auto requant = AddRequantConstant(rw, rw.value(end->q.out).name, m);
  if (!requant.ok()) return false;
  KILN_ASSIGN_OR_RETURN(QClamp clamp, ActivationClamp(end->act, end->q.params, end->q.dtype));
  Node n = MakeNode(rw.node(id), add ? OpType::kQAdd : OpType::kQMul);
  if (end->act_node != kNoNode) n.sources = rw.MergeSources({id, end->act_node});
  n.inputs = {a->value, b->value, *requant};
  n.attrs.Set("out_dtype", DTypeAttr(end->q.dtype));
  n.attrs.Set("qmin", clamp.qmin);
  n.attrs.Set("qmax", clamp.qmax);
  KILN_RETURN_IF_ERROR(Replace(rw, std::move(n), id, *end));
  ctx.Count(add ? "add" : "mul");
  return true;
}

Expected<bool> LowerConcat(GraphRewriter& rw, NodeId id, PassContext& ctx) {
  const Node& f = rw.node(id);
  if (f.op != OpType::kConcat) return false;
  auto end = MatchQEnd(rw, f.outputs[0], false);
  if (!end) return false;
  std::vector<DqMatch> ins;
  bool same = true;
  for (ValueId in : f.inputs) {
    auto d = ActivationDq(rw, in);
    if (!d) return false;
    same &= SameParams(d->params, end->q.params) && rw.value(d->int_value).dtype == end->q.dtype;
    ins.push_back(*d);
  }
  Node n = MakeNode(f, same ? OpType::kConcat : OpType::kQConcat);
  n.attrs.Set("axis", f.attrs.GetInt("axis", 0));
  std::vector<double> m;
  for (const DqMatch& d : ins) {
    rw.value(d.int_value).quant = d.params;
    n.inputs.push_back(d.int_value);
    m.push_back(d.params.scales[0] / end->q.params.scales[0]);
  }
  if (!same) {
    auto requant = AddRequantConstant(rw, rw.value(end->q.out).name, m);
    if (!requant.ok()) return false;
    n.inputs.push_back(*requant);
    n.attrs.Set("out_dtype", DTypeAttr(end->q.dtype));
  }
  KILN_RETURN_IF_ERROR(Replace(rw, std::move(n), id, *end));
  ctx.Count(same ? "concat" : "concat-requant");
  return true;
}

Expected<bool> LowerPool(GraphRewriter& rw, NodeId id, PassContext& ctx) {
  const Node& f = rw.node(id);
  const bool global = f.op == OpType::kGlobalAveragePool;
  if (!global && f.op != OpType::kAveragePool) return false;
  auto dx = ActivationDq(rw, f.inputs[0]);
  if (!dx) return false;
  const ValueId y = f.outputs[0];
  const double s_x = dx->params.scales[0];
  const Shape& xs = rw.value(f.inputs[0]).shape;
  const int64_t spatial = NumElements(Shape(xs.begin() + 2, xs.end()));
  auto end = MatchQEnd(rw, y, false);
  rw.value(dx->int_value).quant = dx->params;
  if (!end) {
    // Global pool read by float ops: the exact int32 sum, dequantized with s_x / spatial.
    const int64_t code_span = Is16BitActivation(rw.value(dx->int_value).dtype) ? 65536 : 256;
    if (!global || rw.NumUses(y) == 0 || spatial * code_span >= (int64_t{1} << 31)) return false;
    Node n = MakeNode(f, OpType::kQGlobalAveragePool);
    n.inputs = {dx->int_value};
    n.attrs.Set("out_dtype", DTypeAttr(DType::kI32));
    Value acc;
    acc.name = rw.graph().UniqueValueName(rw.value(y).name + ".acc");
    acc.dtype = DType::kI32;
    acc.shape = rw.value(y).shape;
    acc.shape_known = true;
    QuantParams q;
    q.scales = {static_cast<float>(s_x / static_cast<double>(spatial))};
    q.zero_points = {0};
    acc.quant = q;
    const ValueId acc_id = rw.AddValue(std::move(acc));
    InsertReplacement(rw, std::move(n), id, acc_id);
    const ValueId dq = InsertDequantize(rw, acc_id, q, kNoValue, id, rw.node(id).sources);
    rw.ReplaceAllUsesWith(y, dq);
    KILN_RETURN_IF_ERROR(rw.EraseNode(id));
    ctx.Count("global-pool-i32");
    return true;
  }
  const double s_y = end->q.params.scales[0];
  Node n = MakeNode(f, global ? OpType::kQGlobalAveragePool : OpType::kQAveragePool);
  std::vector<double> m;
  if (global) {
    m = {s_x / (s_y * static_cast<double>(spatial))};
  } else {
    if (f.attrs.Has("dilations")) {
      for (int64_t d : f.attrs.GetInts("dilations")) {
        if (d != 1) return false;
      }
    }
    n.attrs = f.attrs;
    int64_t taps = 1;
    for (int64_t k : f.attrs.GetInts("kernel_shape")) taps *= k;
    if (taps <= 0 || taps > 65536) return false;
    for (int64_t c = 1; c <= taps; ++c) m.push_back(s_x / (s_y * static_cast<double>(c)));
  }
  auto requant = AddRequantConstant(rw, rw.value(end->q.out).name, m);
  if (!requant.ok()) return false;
  n.inputs = {dx->int_value, *requant};
  n.attrs.Set("out_dtype", DTypeAttr(end->q.dtype));
  KILN_RETURN_IF_ERROR(Replace(rw, std::move(n), id, *end));
  ctx.Count(global ? "global-pool" : "average-pool");
  return true;
}

bool IsPassThroughOp(const Node& n) {
  switch (n.op) {
    case OpType::kReshape:
    case OpType::kFlatten:
    case OpType::kSqueeze:
    case OpType::kUnsqueeze:
    case OpType::kTranspose:
    case OpType::kIdentity:
    case OpType::kSlice:
    case OpType::kDepthToSpace:
    case OpType::kSpaceToDepth:
    case OpType::kExpand:
    case OpType::kTile:
      return true;
    case OpType::kMaxPool:
      return n.outputs.size() == 1 || n.outputs[1] == kNoValue;
    case OpType::kResize:
      return n.attrs.GetString("mode", "nearest") == "nearest";
    default:
      return false;
  }
}

Expected<bool> LowerPassThrough(GraphRewriter& rw, NodeId id, PassContext& ctx) {
  const Node& f = rw.node(id);
  if (!IsPassThroughOp(f)) return false;
  auto dx = ActivationDq(rw, f.inputs[0]);
  if (!dx) return false;
  for (size_t i = 1; i < f.inputs.size(); ++i) {
    if (f.inputs[i] != kNoValue && !rw.value(f.inputs[i]).is_constant()) return false;
  }
  auto end = MatchQEnd(rw, f.outputs[0], false);
  if (!end) return false;
  const DType in_type = rw.value(dx->int_value).dtype;
  rw.value(dx->int_value).quant = dx->params;
  Node n = MakeNode(f, f.op);
  n.attrs = f.attrs;
  n.inputs = f.inputs;
  n.inputs[0] = dx->int_value;
  if (in_type == end->q.dtype && SameParams(dx->params, end->q.params)) {
    KILN_RETURN_IF_ERROR(Replace(rw, std::move(n), id, *end));
    ctx.Count("move");
    return true;
  }
  // Different output parameters: move the input's codes, then requantize through a table.
  Value mid;
  mid.name = rw.graph().UniqueValueName(rw.value(f.outputs[0]).name + ".moved");
  mid.dtype = in_type;
  mid.shape = rw.value(f.outputs[0]).shape;
  mid.shape_known = true;
  mid.quant = dx->params;
  const ValueId mid_id = rw.AddValue(std::move(mid));
  n.outputs = {mid_id};
  const std::vector<std::string> sources = n.sources;
  rw.InsertNode(std::move(n), end->q.node);
  Node lut = LookupNode(rw, rw.value(end->q.out).name + ".requantize", mid_id,
                        RequantizeTable(in_type, dx->params, end->q.dtype, end->q.params),
                        end->q.dtype, sources);
  KILN_RETURN_IF_ERROR(Replace(rw, std::move(lut), id, *end));
  ctx.Count("move-requant");
  return true;
}

Expected<bool> LowerAtQuantize(GraphRewriter& rw, NodeId qid, PassContext& ctx) {
  const Node& qn = rw.node(qid);
  if (qn.op != OpType::kQuantizeLinear) return false;
  auto q = ReadQdqParams(rw.graph(), qn);
  const ValueId out = qn.outputs[0];
  const DType out_type = rw.value(out).dtype;
  if (!q || q->per_axis() || !IsActivationCode(out_type, *q)) return false;
  const QEnd end{QMatch{qid, out, *q, out_type}, {}, kNoNode};
  const ValueId y = qn.inputs[0];
  if (auto d = ActivationDq(rw, y)) {
    // DQ -> Q: the same codes, or a requantizing table.
    const DType in_type = rw.value(d->int_value).dtype;
    rw.value(d->int_value).quant = d->params;
    if (in_type == out_type && SameParams(d->params, *q) && !rw.IsGraphOutput(out)) {
      rw.ReplaceAllUsesWith(out, d->int_value);
      KILN_RETURN_IF_ERROR(rw.EraseNode(qid));
      ctx.Count("requantize-removed");
      return true;
    }
    Node lut = LookupNode(rw, rw.value(out).name + ".requantize", d->int_value,
                          RequantizeTable(in_type, d->params, out_type, *q), out_type,
                          rw.node(qid).sources);
    KILN_RETURN_IF_ERROR(Replace(rw, std::move(lut), kNoNode, end));
    ctx.Count("requantize");
    return true;
  }
  // An elementwise chain from one DQ: find the DQ among the chain's inputs.
  auto p = rw.Producer(y);
  if (!p || !IsLookupLink(rw, rw.node(*p))) return false;
  std::optional<DqMatch> source;
  std::vector<ValueId> frontier = {y};
  std::vector<bool> seen(rw.graph().num_values(), false);
  while (!frontier.empty() && !source) {
    const ValueId v = frontier.back();
    frontier.pop_back();
    if (seen[static_cast<size_t>(v)]) continue;
    seen[static_cast<size_t>(v)] = true;
    if (auto d = ActivationDq(rw, v)) {
      source = d;
      break;
    }
    auto pr = rw.Producer(v);
    if (!pr || !IsLookupLink(rw, rw.node(*pr))) return false;
    for (ValueId in : rw.node(*pr).inputs) {
      if (in != kNoValue && !rw.value(in).is_constant()) frontier.push_back(in);
    }
  }
  if (!source) return false;
  const ValueId src_float = rw.node(source->node).outputs[0];
  auto chain = FindLookupChain(rw, y, src_float);
  if (!chain) return false;
  const DType in_type = rw.value(source->int_value).dtype;
  auto table = BuildLookupTable(rw, *chain, src_float, y, in_type, source->params, out_type, *q);
  if (!table.ok()) return false;
  rw.value(source->int_value).quant = source->params;
  std::vector<NodeId> nodes = *chain;
  Node lut = LookupNode(rw, rw.value(out).name + ".lookup", source->int_value, *table, out_type,
                        rw.MergeSources(nodes));
  KILN_RETURN_IF_ERROR(Replace(rw, std::move(lut), kNoNode, end));
  // The chain's nodes go when nothing else reads them (later nodes first).
  for (auto it = nodes.rbegin(); it != nodes.rend(); ++it)
    KILN_RETURN_IF_ERROR(EraseIfUnused(rw, *it));
  ctx.Count("lookup");
  return true;
}

}  // namespace kiln::quant
