// Graph statistics: op histogram, parameter totals and MACs of the compute-heavy ops.
#include "compiler/model_stats.h"

#include <unordered_set>

namespace kiln {
namespace {

bool Known(const Graph& g, ValueId id) { return id != kNoValue && g.value(id).shape_known; }

int64_t ProductFrom(const Shape& s, size_t first) {
  int64_t p = 1;
  for (size_t i = first; i < s.size(); ++i) p *= s[i];
  return p;
}

}  // namespace

int64_t NodeMacs(const Graph& g, const Node& n) {
  const bool counted = n.op == OpType::kConv || n.op == OpType::kConvTranspose ||
                       n.op == OpType::kGemm || n.op == OpType::kMatMul ||
                       n.op == OpType::kFusedConv || n.op == OpType::kFusedGemm ||
                       n.op == OpType::kQConv || n.op == OpType::kQGemm;
  if (!counted) return 0;
  if (n.inputs.size() < 2 || n.outputs.empty()) return -1;
  const ValueId a = n.inputs[0], b = n.inputs[1], y = n.outputs[0];
  if (!Known(g, a) || !Known(g, b) || !Known(g, y)) return -1;
  const Shape& as = g.value(a).shape;
  const Shape& bs = g.value(b).shape;
  const int64_t out = g.value(y).num_elements();
  switch (n.op) {
    case OpType::kConv:  // each output element reads C/group * kernel taps
    case OpType::kFusedConv:
    case OpType::kQConv:
      return bs.size() < 2 ? -1 : out * ProductFrom(bs, 1);
    case OpType::kConvTranspose:  // each input element scatters into M/group * kernel taps
      return bs.size() < 2 ? -1 : g.value(a).num_elements() * ProductFrom(bs, 1);
    case OpType::kGemm:
    case OpType::kFusedGemm:
    case OpType::kQGemm: {  // K from B, which is 2-D whatever A's rank (a_flatten_axis)
      if (bs.size() != 2) return -1;
      const int64_t k = n.attrs.GetInt("transB", 0) ? bs[1] : bs[0];
      return out * k;
    }
    case OpType::kMatMul:
      return as.empty() ? -1 : out * as.back();
    default:
      return 0;
  }
}

ModelStats ComputeModelStats(const Graph& g) {
  ModelStats s;
  for (ValueId id : g.inputs()) {
    const Value& v = g.value(id);
    s.inputs.push_back({v.name, v.dtype, v.shape, v.shape_known});
  }
  for (ValueId id : g.outputs()) {
    const Value& v = g.value(id);
    s.outputs.push_back({v.name, v.dtype, v.shape, v.shape_known});
  }
  std::unordered_set<ValueId> params;
  for (const Node& n : g.nodes()) {
    ++s.num_nodes;
    ++s.op_histogram[std::string(OpTypeName(n.op))];
    // i64 constants are shapes, axes and indices (ONNX's index type), not learned weights.
    for (ValueId in : n.inputs)
      if (in != kNoValue && g.value(in).is_constant() && g.value(in).dtype != DType::kI64)
        params.insert(in);
    const int64_t macs = NodeMacs(g, n);
    if (macs < 0) {
      s.macs_unknown_nodes.push_back(n.name);
    } else {
      s.macs += macs;
    }
  }
  for (ValueId id : params) {
    const Value& v = g.value(id);
    s.parameter_count += v.num_elements();
    s.parameter_bytes += static_cast<int64_t>(v.constant->size());
  }
  return s;
}

}  // namespace kiln
