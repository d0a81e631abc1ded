// Lookup-table construction for elementwise chains and plain requantization.
#include "compiler/quantize/lut_builder.h"

#include <algorithm>
#include <cstring>
#include <memory>
#include <set>

#include "ir/op_schema.h"
#include "quant/quant_math.h"
#include "backends/cpu/cpu_evaluate.h"

namespace kiln::quant {
namespace {

bool IsElementwiseFloatOp(OpType op) {
  switch (op) {
    case OpType::kRelu:
    case OpType::kLeakyRelu:
    case OpType::kPRelu:
    case OpType::kClip:
    case OpType::kSigmoid:
    case OpType::kTanh:
    case OpType::kHardSigmoid:
    case OpType::kHardSwish:
    case OpType::kElu:
    case OpType::kSelu:
    case OpType::kSoftplus:
    case OpType::kErf:
    case OpType::kExp:
    case OpType::kLog:
    case OpType::kSqrt:
    case OpType::kAbs:
    case OpType::kNeg:
    case OpType::kReciprocal:
    case OpType::kFloor:
    case OpType::kCeil:
    case OpType::kSign:
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kDiv:
    case OpType::kPow:
    case OpType::kMax:
    case OpType::kMin:
    case OpType::kIdentity:
      return true;
    default:
      return false;
  }
}

// The input code of table entry k: the code itself for 8-bit inputs (u8: k, i8: k - 128), the
// k-th interpolation knot -32768 + 128 k for i16 (knot 512 is 32768, one past the last code:
// the function is evaluated there all the same).
int32_t CodeOf(int k, DType t) {
  if (t == DType::kI16) return -32768 + 128 * k;
  return t == DType::kU8 ? k : k - 128;
}

}  // namespace

bool IsLookupLink(const GraphRewriter& rw, const Node& n) {
  if (!IsElementwiseFloatOp(n.op) || n.outputs.size() != 1 || n.outputs[0] == kNoValue) {
    return false;
  }
  const Value& out = rw.value(n.outputs[0]);
  if (out.dtype != DType::kF32) return false;
  int dynamic = 0;
  for (ValueId in : n.inputs) {
    if (in == kNoValue) continue;
    const Value& v = rw.value(in);
    if (v.dtype != DType::kF32) return false;
    if (v.is_constant()) {
      if (v.num_elements() != 1) return false;
    } else {
      // Dynamic inputs are not broadcast: x * sigmoid(x), never x + y[c].
      if (v.shape != out.shape) return false;
      ++dynamic;
    }
  }
  return dynamic >= 1;
}

std::optional<std::vector<NodeId>> FindLookupChain(const GraphRewriter& rw, ValueId y,
                                                   ValueId source) {
  std::set<NodeId> chain;
  std::vector<ValueId> frontier = {y};
  while (!frontier.empty()) {
    const ValueId v = frontier.back();
    frontier.pop_back();
    if (v == source) continue;
    auto p = rw.Producer(v);
    if (!p || !IsLookupLink(rw, rw.node(*p))) return std::nullopt;
    if (!chain.insert(*p).second) continue;
    if (chain.size() > 32) return std::nullopt;
    for (ValueId in : rw.node(*p).inputs) {
      if (in != kNoValue && !rw.value(in).is_constant()) frontier.push_back(in);
    }
  }
  if (chain.empty()) return std::nullopt;
  return std::vector<NodeId>(chain.begin(), chain.end());
}

int LookupTableEntries(DType in_type) { return in_type == DType::kI16 ? 513 : 256; }

Expected<std::vector<int64_t>> BuildLookupTable(const GraphRewriter& rw,
                                                const std::vector<NodeId>& chain, ValueId source,
                                                ValueId y, DType in_type,
                                                const QuantParams& in_params, DType out_type,
                                                const QuantParams& out_params) {
  // A copy of the chain over an input holding every entry's dequantized code.
  const int entries = LookupTableEntries(in_type);
  auto g = std::make_shared<Graph>();
  std::vector<ValueId> map(rw.graph().num_values(), kNoValue);
  Value x;
  x.name = "codes";
  x.dtype = DType::kF32;
  x.shape = {entries};
  x.shape_known = true;
  map[static_cast<size_t>(source)] = g->AddValue(x);
  g->inputs().push_back(map[static_cast<size_t>(source)]);
  std::vector<NodeId> ordered = chain;
  std::sort(ordered.begin(), ordered.end());
  std::vector<NodeId> added;
  for (NodeId id : ordered) {
    Node n = rw.node(id);
    for (ValueId& in : n.inputs) {
      if (in == kNoValue) continue;
      ValueId& m = map[static_cast<size_t>(in)];
      if (m == kNoValue) {
        const Value& c = rw.value(in);
        if (!c.is_constant())
          return Internal("lookup chain input '" + c.name + "' is not in the chain");
        m = g->AddConstant(c.name, c.dtype, c.shape, *c.constant);
      }
      in = m;
    }
    Value out;
    out.name = rw.value(n.outputs[0]).name;
    map[static_cast<size_t>(n.outputs[0])] = g->AddValue(out);
    n.outputs[0] = map[static_cast<size_t>(n.outputs[0])];
    added.push_back(g->AddNode(std::move(n)));
  }
  const ValueId out = map[static_cast<size_t>(y)];
  if (out == kNoValue) return Internal("lookup chain does not produce its output");
  g->outputs().push_back(out);
  // The mini graph is in topological order (ids of the original chain are).
  KILN_RETURN_IF_ERROR(g->SortTopologically());
  for (size_t i = 0; i < g->num_nodes(); ++i) {
    KILN_RETURN_IF_ERROR(InferNode(*g, static_cast<NodeId>(i)));
  }
  if (g->value(out).num_elements() != entries) {
    return Unsupported("lookup chain broadcasts its input to " +
                       ShapeToString(g->value(out).shape));
  }
  HostTensor codes("codes", DType::kF32, {entries});
  for (int k = 0; k < entries; ++k) {
    codes.data<float>()[k] = static_cast<float>(
        Dequantize(CodeOf(k, in_type), in_params.scales[0], in_params.zero_points[0]));
  }
  KILN_ASSIGN_OR_RETURN(auto outs, EvaluateOnCpu(*g, {codes}));
  std::vector<int64_t> table(static_cast<size_t>(entries));
  const float* r = outs[0].data<float>();
  for (int k = 0; k < entries; ++k) {
    table[static_cast<size_t>(k)] =
        QuantizeValue(r[k], out_params.scales[0], out_params.zero_points[0], out_type);
  }
  return table;
}

std::vector<int64_t> RequantizeTable(DType in_type, const QuantParams& in_params, DType out_type,
                                     const QuantParams& out_params) {
  const int entries = LookupTableEntries(in_type);
  std::vector<int64_t> table(static_cast<size_t>(entries));
  for (int k = 0; k < entries; ++k) {
    const double v = Dequantize(CodeOf(k, in_type), in_params.scales[0], in_params.zero_points[0]);
    table[static_cast<size_t>(k)] =
        QuantizeValue(v, out_params.scales[0], out_params.zero_points[0], out_type);
  }
  return table;
}

}  // namespace kiln::quant
