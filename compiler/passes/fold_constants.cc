// Shape propagation + constant folding: InferNode per node, then the reference CPU kernels
// (backends/cpu/cpu_evaluate.h) for nodes whose inputs are all constants.
#include "compiler/passes/fold_constants.h"

#include <algorithm>
#include <memory>
#include <unordered_map>

#include "ir/host_tensor.h"
#include "ir/op_schema.h"
#include "backends/cpu/cpu_evaluate.h"

namespace kiln {

Expected<std::vector<ConstantBytes>> EvaluateConstantNode(const Graph& g, const Node& node) {
  auto mini = std::make_shared<Graph>();
  Node copy = node;
  for (ValueId& in : copy.inputs) {
    if (in == kNoValue) continue;
    const Value& v = g.value(in);
    in = mini->AddConstant(v.name, v.dtype, v.shape, *v.constant);
  }
  for (ValueId& out : copy.outputs) {
    if (out == kNoValue) continue;
    Value v = g.value(out);
    v.producer = kNoNode;
    out = mini->AddValue(std::move(v));
    mini->outputs().push_back(out);
  }
  mini->AddNode(std::move(copy));
  KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outs, EvaluateOnCpu(*mini, {}));
  std::vector<ConstantBytes> result;
  for (HostTensor& t : outs) result.push_back(ConstantBytes::FromVector(std::move(t.bytes)));
  return result;
}

namespace {

// Shape and Size need only the (static) input shape, not its data.
Expected<std::vector<ConstantBytes>> EvaluateShapeOp(const Graph& g, const Node& node) {
  const Value& in = g.value(node.inputs[0]);
  const Value& out = g.value(node.outputs[0]);
  std::vector<int64_t> data;
  if (node.op == OpType::kSize) {
    data.push_back(in.num_elements());
  } else {
    const int64_t rank = static_cast<int64_t>(in.shape.size());
    int64_t start = node.attrs.GetInt("start", 0);
    int64_t end = node.attrs.GetInt("end", rank);
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    start = std::clamp<int64_t>(start, 0, rank);
    end = std::clamp<int64_t>(end, 0, rank);
    for (int64_t i = start; i < end; ++i) data.push_back(in.shape[static_cast<size_t>(i)]);
  }
  if (out.dtype != DType::kI64 || static_cast<int64_t>(data.size()) != out.num_elements()) {
    return Internal("node '" + node.name + "': inferred output " +
                    std::string(DTypeName(out.dtype)) + ShapeToString(out.shape) +
                    " disagrees with the evaluated shape");
  }
  std::vector<ConstantBytes> result;
  result.push_back(ConstantBytes::Copy(data.data(), data.size() * sizeof(int64_t)));
  return result;
}

}  // namespace

bool AllInputsConstant(const Graph& g, const Node& node) {
  for (ValueId in : node.inputs) {
    if (in != kNoValue && !g.value(in).is_constant()) return false;
  }
  return true;
}

Status PropagateShapesAndFold(Graph& g, FoldConstantsStats* stats) {
  FoldConstantsStats local;
  FoldConstantsStats& st = stats ? *stats : local;
  KILN_RETURN_IF_ERROR(g.SortTopologically());
  // Why a node could not be folded, to explain a later "must be constant" error.
  std::unordered_map<ValueId, std::string> fold_failures;

  for (size_t n = 0; n < g.num_nodes(); ++n) {
    const auto id = static_cast<NodeId>(n);
    Status inferred = InferNode(g, id);
    if (!inferred.ok()) {
      for (ValueId in : g.node(id).inputs) {
        auto it = in == kNoValue ? fold_failures.end() : fold_failures.find(in);
        if (it != fold_failures.end()) {
          return Status(inferred.code(), inferred.message() +
                                             " (its producer could not be "
                                             "evaluated at compile time: " +
                                             it->second + ")");
        }
      }
      return inferred;
    }
    ++st.nodes_inferred;
    const Node& node = g.node(id);
    const bool shape_only = (node.op == OpType::kShape || node.op == OpType::kSize) &&
                            !node.inputs.empty() && node.inputs[0] != kNoValue;
    if (!shape_only && !AllInputsConstant(g, node)) continue;
    // DequantizeLinear of a constant is a quantized weight or bias: it stays, so that the
    // lower-qdq pass can run its consumer on the integer values.
    if (node.op == OpType::kDequantizeLinear) continue;
    auto folded = shape_only ? EvaluateShapeOp(g, node) : EvaluateConstantNode(g, node);
    if (!folded.ok()) {
      // Not fatal: the node stays and runs at run time (or fails later with this reason).
      for (ValueId out : node.outputs) {
        if (out != kNoValue) fold_failures[out] = folded.status().ToString();
      }
      continue;
    }
    Node& mutable_node = g.node(id);
    size_t k = 0;
    for (ValueId& out : mutable_node.outputs) {
      if (out == kNoValue) continue;
      Value& v = g.value(out);
      ConstantBytes& bytes = (*folded)[k++];
      if (bytes.size() != v.byte_size()) {
        return Internal("node '" + mutable_node.name + "': folded output '" + v.name + "' has " +
                        std::to_string(bytes.size()) + " bytes, expected " +
                        std::to_string(v.byte_size()));
      }
      v.constant = std::move(bytes);
      v.producer = kNoNode;
      out = kNoValue;  // the node no longer produces it: it is dead now
    }
    ++st.nodes_folded;
  }
  const size_t before = g.num_nodes();
  g.RemoveDeadNodesAndValues();
  st.nodes_removed = static_cast<int64_t>(before - g.num_nodes());
  return Status::Ok();
}

}  // namespace kiln
