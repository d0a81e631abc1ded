// Schema registry and the node inference driver.
#include "ir/op_schema.h"

#include <algorithm>
#include <cstring>

namespace kiln {

const SchemaRegistry& SchemaRegistry::Global() {
  static const SchemaRegistry registry = [] {
    SchemaRegistry r;
    RegisterNnSchemas(r);
    RegisterElementwiseSchemas(r);
    RegisterTensorSchemas(r);
    RegisterFusedSchemas(r);
    RegisterQuantizedSchemas(r);
    return r;
  }();
  return registry;
}

void SchemaRegistry::Register(OpSchema schema) {
  const auto idx = static_cast<size_t>(schema.op);
  if (schemas_.size() <= idx) schemas_.resize(idx + 1);
  schemas_[idx] = std::move(schema);
}

const OpSchema* SchemaRegistry::Find(OpType op) const {
  const auto idx = static_cast<size_t>(op);
  if (idx >= schemas_.size() || schemas_[idx].op == OpType::kUnknown) return nullptr;
  return &schemas_[idx];
}

Expected<std::vector<int64_t>> InferenceContext::ConstantInts(size_t i) const {
  const ConstantBytes* c = input_constant(i);
  if (!c) {
    return InvalidArgument("input " + std::to_string(i) + " ('" +
                           (has_input(i) ? input(i).name : std::string("<none>")) +
                           "') must be a constant: Kiln shapes are static");
  }
  const DType t = input_dtype(i);
  const size_t n = static_cast<size_t>(input(i).num_elements());
  std::vector<int64_t> out(n);
  if (t == DType::kI64) {
    if (n) std::memcpy(out.data(), c->data(), n * 8);
  } else if (t == DType::kI32) {
    for (size_t k = 0; k < n; ++k) out[k] = c->as<int32_t>()[k];
  } else {
    return InvalidArgument("input " + std::to_string(i) + " must be i32 or i64, got " +
                           std::string(DTypeName(t)));
  }
  return out;
}

Expected<std::vector<float>> InferenceContext::ConstantFloats(size_t i) const {
  const ConstantBytes* c = input_constant(i);
  if (!c) {
    return InvalidArgument("input " + std::to_string(i) +
                           " must be a constant: Kiln shapes are static");
  }
  const DType t = input_dtype(i);
  const size_t n = static_cast<size_t>(input(i).num_elements());
  std::vector<float> out(n);
  if (t == DType::kF32) {
    if (n) std::memcpy(out.data(), c->data(), n * 4);
  } else if (t == DType::kF16) {
    for (size_t k = 0; k < n; ++k) out[k] = HalfToFloat(c->as<uint16_t>()[k]);
  } else {
    return InvalidArgument("input " + std::to_string(i) + " must be f32 or f16");
  }
  return out;
}

Status InferNode(Graph& graph, NodeId id) {
  Node& node = graph.node(id);
  const std::string where = "node '" + node.name + "' (" + std::string(OpTypeName(node.op)) + ")";
  const OpSchema* schema = SchemaRegistry::Global().Find(node.op);
  if (!schema || !schema->infer) {
    return Unsupported(where + ": no schema registered");
  }
  const int n_in = static_cast<int>(node.inputs.size());
  const int n_out = static_cast<int>(node.outputs.size());
  if (n_in < schema->min_inputs || n_in > schema->max_inputs) {
    return InvalidArgument(where + ": expects " + std::to_string(schema->min_inputs) + ".." +
                           std::to_string(schema->max_inputs) + " inputs, got " +
                           std::to_string(n_in));
  }
  if (n_out < schema->min_outputs || n_out > schema->max_outputs) {
    return InvalidArgument(where + ": expects " + std::to_string(schema->min_outputs) + ".." +
                           std::to_string(schema->max_outputs) + " outputs, got " +
                           std::to_string(n_out));
  }
  for (int i = 0; i < schema->min_inputs; ++i) {
    if (node.inputs[static_cast<size_t>(i)] == kNoValue) {
      return InvalidArgument(where + ": required input " + std::to_string(i) + " is missing");
    }
  }
  for (ValueId in : node.inputs) {
    if (in == kNoValue) continue;
    const Value& v = graph.value(in);
    if (!v.shape_known) {
      return Internal(where + ": input '" + v.name + "' has no inferred shape");
    }
    // Every inference function may rely on the limits of ir/shape.h for its inputs.
    for (int64_t d : v.shape) {
      if (d < 0 || d > kMaxDim) {
        return InvalidArgument(where + ": input '" + v.name + "' shape " + ShapeToString(v.shape) +
                               " has a dim outside [0, 2^40]");
      }
    }
  }
  InferenceContext ctx(graph, node);
  for (int vi : schema->value_inputs) {
    if (ctx.has_input(static_cast<size_t>(vi)) && !ctx.input_constant(static_cast<size_t>(vi))) {
      return InvalidArgument(where + ": input '" + ctx.input(static_cast<size_t>(vi)).name +
                             "' determines the output shape and must be constant (Kiln "
                             "compiles static shapes; fix the input shapes with --input-shape)");
    }
  }
  KILN_RETURN_IF_ERROR(schema->infer(ctx).WithContext(where));
  for (size_t i = 0; i < node.outputs.size(); ++i) {
    if (node.outputs[i] == kNoValue) continue;
    const auto& info = ctx.outputs()[i];
    if (!info.set) return Internal(where + ": output " + std::to_string(i) + " not inferred");
    for (int64_t d : info.shape) {
      if (d < 0) return InvalidArgument(where + ": inferred a negative dimension");
      if (d > kMaxDim) {
        return InvalidArgument(where + ": output " + std::to_string(i) + " shape " +
                               ShapeToString(info.shape) + " has a dim above 2^40");
      }
    }
    // Refuse tensors no device could hold (and whose byte size would overflow size_t math).
    if (NumElements(info.shape) > kMaxTensorBytes / 8) {
      return InvalidArgument(where + ": output " + std::to_string(i) + " shape " +
                             ShapeToString(info.shape) + " is too large");
    }
    Value& v = graph.value(node.outputs[i]);
    v.dtype = info.dtype;
    v.shape = info.shape;
    v.shape_known = true;
  }
  return Status::Ok();
}

Expected<Shape> BroadcastShapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return InvalidArgument("shapes " + ShapeToString(a) + " and " + ShapeToString(b) +
                             " do not broadcast");
    }
  }
  return out;
}

}  // namespace kiln
