// Graph verifier.
#include "ir/verifier.h"

#include "ir/op_schema.h"

namespace kiln {
namespace {

Status CheckValueId(const Graph& g, ValueId id, const std::string& where) {
  if (id == kNoValue) return Status::Ok();
  if (id < 0 || static_cast<size_t>(id) >= g.num_values()) {
    return InvalidArgument(where + ": value id " + std::to_string(id) + " out of range");
  }
  return Status::Ok();
}

}  // namespace

Status VerifyGraph(const Graph& g) {
  std::vector<int> producers(g.num_values(), 0);
  std::vector<bool> defined(g.num_values(), false);
  for (size_t i = 0; i < g.num_values(); ++i) {
    const Value& v = g.value(static_cast<ValueId>(i));
    if (v.is_constant()) {
      defined[i] = true;
      if (v.constant->size() != v.byte_size()) {
        return InvalidArgument("constant '" + v.name + "' holds " +
                               std::to_string(v.constant->size()) + " bytes, expected " +
                               std::to_string(v.byte_size()) + " for " +
                               std::string(DTypeName(v.dtype)) + ShapeToString(v.shape));
      }
    }
  }
  for (ValueId in : g.inputs()) {
    KILN_RETURN_IF_ERROR(CheckValueId(g, in, "graph input"));
    if (in == kNoValue) return InvalidArgument("graph input is empty");
    defined[static_cast<size_t>(in)] = true;
  }
  for (size_t n = 0; n < g.num_nodes(); ++n) {
    const Node& node = g.node(static_cast<NodeId>(n));
    const std::string where = "node '" + node.name + "' (" + std::string(OpTypeName(node.op)) + ")";
    if (!SchemaRegistry::Global().Find(node.op)) return Unsupported(where + ": unknown op");
    for (ValueId in : node.inputs) {
      KILN_RETURN_IF_ERROR(CheckValueId(g, in, where));
      if (in != kNoValue && !defined[static_cast<size_t>(in)]) {
        return InvalidArgument(where + ": input '" + g.value(in).name +
                               "' is not defined before use (undefined or a cycle)");
      }
    }
    for (ValueId out : node.outputs) {
      KILN_RETURN_IF_ERROR(CheckValueId(g, out, where));
      if (out == kNoValue) continue;
      if (++producers[static_cast<size_t>(out)] > 1 || g.value(out).is_constant()) {
        return InvalidArgument(where + ": value '" + g.value(out).name +
                               "' has more than one producer");
      }
      defined[static_cast<size_t>(out)] = true;
    }
  }
  for (ValueId out : g.outputs()) {
    KILN_RETURN_IF_ERROR(CheckValueId(g, out, "graph output"));
    if (out == kNoValue || !defined[static_cast<size_t>(out)]) {
      return InvalidArgument("graph output is not produced by any node");
    }
  }
  for (size_t i = 0; i < g.num_values(); ++i) {
    const Value& v = g.value(static_cast<ValueId>(i));
    if (defined[i] && (!v.shape_known || v.dtype == DType::kUndefined)) {
      return InvalidArgument("value '" + v.name + "' has no dtype or shape");
    }
    // The limits of ir/shape.h, which shape inference relies on.
    for (int64_t d : v.shape) {
      if (d < 0 || d > kMaxDim) {
        return InvalidArgument("value '" + v.name + "' shape " + ShapeToString(v.shape) +
                               " has a dim outside [0, 2^40]");
      }
    }
    if (defined[i] && v.layout == Layout::kNCHW8c && v.shape.size() != 4) {
      return InvalidArgument("value '" + v.name + "' is stored nchw8c but has shape " +
                             ShapeToString(v.shape) + " (rank 4 needed)");
    }
    if (defined[i] && NumElements(v.shape) > kMaxTensorBytes / 8) {
      return InvalidArgument("value '" + v.name + "' shape " + ShapeToString(v.shape) +
                             " is too large");
    }
  }
  // Re-run inference on a copy and compare with what the graph claims.
  Graph copy = g;
  for (size_t n = 0; n < copy.num_nodes(); ++n) {
    KILN_RETURN_IF_ERROR(InferNode(copy, static_cast<NodeId>(n)));
    for (ValueId out : g.node(static_cast<NodeId>(n)).outputs) {
      if (out == kNoValue) continue;
      const Value& claimed = g.value(out);
      const Value& inferred = copy.value(out);
      if (claimed.dtype != inferred.dtype || claimed.shape != inferred.shape) {
        return InvalidArgument("value '" + claimed.name + "' is " +
                               std::string(DTypeName(claimed.dtype)) +
                               ShapeToString(claimed.shape) + " but its producer gives " +
                               std::string(DTypeName(inferred.dtype)) +
                               ShapeToString(inferred.shape));
      }
    }
  }
  return Status::Ok();
}

}  // namespace kiln
