// ModelProto -> Graph: values, constants (initializers, Constant nodes), attributes, nodes.
#include "parsers/onnx/onnx_graph_builder.h"

#include <algorithm>
#include <set>
#include <unordered_map>

#include "ir/op_schema.h"
#include "parsers/onnx/onnx_op_versions.h"
#include "parsers/onnx/tensor_proto.h"

namespace kiln {
namespace {

ConstantBytes ToConstant(HostTensor&& t) { return ConstantBytes::FromVector(std::move(t.bytes)); }

Expected<TensorAttr> ToTensorAttr(const onnx::TensorProto& p, const std::string& base_dir) {
  KILN_ASSIGN_OR_RETURN(HostTensor t, TensorProtoToHostTensor(p, base_dir));
  TensorAttr a;
  a.dtype = t.dtype;
  a.shape = t.shape;
  a.bytes = ToConstant(std::move(t));
  return a;
}

Expected<AttrValue> ConvertAttribute(const onnx::AttributeProto& a, const std::string& base_dir) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT:
      return AttrValue(static_cast<int64_t>(a.i()));
    case A::FLOAT:
      return AttrValue(a.f());
    case A::STRING:
      return AttrValue(a.s());
    case A::INTS:
      return AttrValue(std::vector<int64_t>(a.ints().begin(), a.ints().end()));
    case A::FLOATS:
      return AttrValue(std::vector<float>(a.floats().begin(), a.floats().end()));
    case A::STRINGS:
      return AttrValue(std::vector<std::string>(a.strings().begin(), a.strings().end()));
    case A::TENSOR: {
      KILN_ASSIGN_OR_RETURN(TensorAttr t, ToTensorAttr(a.t(), base_dir));
      return AttrValue(std::move(t));
    }
    default:
      return Unsupported("attribute '" + a.name() + "' has type " +
                         A::AttributeType_Name(a.type()) + ", which Kiln does not support");
  }
}

// The value of a Constant node, from whichever attribute it carries.
Expected<HostTensor> ConstantNodeValue(const onnx::NodeProto& n, const std::string& base_dir) {
  if (n.attribute_size() != 1) {
    return InvalidArgument("Constant must have exactly one value attribute");
  }
  const onnx::AttributeProto& a = n.attribute(0);
  HostTensor t;
  if (a.name() == "value") {
    KILN_ASSIGN_OR_RETURN(t, TensorProtoToHostTensor(a.t(), base_dir));
  } else if (a.name() == "value_float") {
    t = HostTensor("", DType::kF32, {});
    *t.data<float>() = a.f();
  } else if (a.name() == "value_floats") {
    t = HostTensor("", DType::kF32, {a.floats_size()});
    for (int i = 0; i < a.floats_size(); ++i) t.data<float>()[i] = a.floats(i);
  } else if (a.name() == "value_int") {
    t = HostTensor("", DType::kI64, {});
    *t.data<int64_t>() = a.i();
  } else if (a.name() == "value_ints") {
    t = HostTensor("", DType::kI64, {a.ints_size()});
    for (int i = 0; i < a.ints_size(); ++i) t.data<int64_t>()[i] = a.ints(i);
  } else {
    return Unsupported("Constant attribute '" + a.name() + "' (strings/sparse) is not supported");
  }
  return t;
}

bool IsDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

}  // namespace

Expected<Graph> BuildGraph(const onnx::ModelProto& model, const GraphBuildOptions& options) {
  const onnx::GraphProto& gp = model.graph();
  Graph g;
  g.name = gp.name();

  // dtype hints from onnx's shape inference and declared types.
  std::unordered_map<std::string, DType> hints;
  auto note_hint = [&](const onnx::ValueInfoProto& vi) {
    if (!vi.type().has_tensor_type()) return;
    auto dt = DTypeFromOnnx(vi.type().tensor_type().elem_type(), vi.name());
    if (dt.ok()) hints[vi.name()] = *dt;
  };
  for (const auto& vi : gp.value_info()) note_hint(vi);
  for (const auto& vi : gp.output()) note_hint(vi);

  // Initializers (constants; they shadow graph inputs of the same name).
  std::set<std::string> initializer_names;
  for (const auto& t : gp.initializer()) {
    KILN_ASSIGN_OR_RETURN(HostTensor h, TensorProtoToHostTensor(t, options.base_dir));
    if (g.FindValue(t.name())) return InvalidArgument("initializer '" + t.name() + "' repeated");
    g.AddConstant(t.name(), h.dtype, h.shape, ToConstant(std::move(h)));
    initializer_names.insert(t.name());
  }

  // Which values determine a shape: schema value_inputs, and (transitively) the values those
  // are computed from, except through Shape/Size, which read only their input's (static) shape.
  std::set<std::string> value_input_names;
  std::unordered_map<std::string, int> producer;
  std::vector<std::string> pending;
  for (int i = 0; i < gp.node_size(); ++i) {
    const auto& n = gp.node(i);
    for (const auto& out : n.output()) producer[out] = i;
    auto op = OpTypeFromName(n.op_type());
    if (!op) continue;
    const OpSchema* schema = SchemaRegistry::Global().Find(*op);
    if (!schema) continue;
    for (int vi : schema->value_inputs) {
      if (vi < n.input_size() && !n.input(vi).empty()) pending.push_back(n.input(vi));
    }
  }
  while (!pending.empty()) {
    const std::string name = std::move(pending.back());
    pending.pop_back();
    if (!value_input_names.insert(name).second) continue;
    auto it = producer.find(name);
    if (it == producer.end()) continue;
    const auto& n = gp.node(it->second);
    if (n.op_type() == "Shape" || n.op_type() == "Size") continue;
    for (const auto& in : n.input()) {
      if (!in.empty()) pending.push_back(in);
    }
  }

  for (const auto& in : gp.input()) {
    if (initializer_names.count(in.name())) continue;
    if (g.FindValue(in.name())) return InvalidArgument("graph input '" + in.name() + "' repeated");
    if (!in.type().has_tensor_type()) {
      return Unsupported("graph input '" + in.name() + "' is not a tensor");
    }
    const auto& tt = in.type().tensor_type();
    KILN_ASSIGN_OR_RETURN(DType dtype,
                          DTypeFromOnnx(tt.elem_type(), "graph input '" + in.name() + "'"));
    Shape shape;
    for (const auto& d : tt.shape().dim()) {
      if (!d.has_dim_value() || d.dim_value() < 0) {
        return Internal("graph input '" + in.name() + "' still has a symbolic dim");
      }
      shape.push_back(d.dim_value());
    }
    const HostTensor* frozen = nullptr;
    for (const auto& f : options.frozen_inputs) {
      if (f.name == in.name()) frozen = &f;
    }
    if (frozen && value_input_names.count(in.name())) {
      if (frozen->dtype != dtype || frozen->shape != shape ||
          frozen->bytes.size() != static_cast<size_t>(NumElements(shape)) * DTypeSize(dtype)) {
        return InvalidArgument("frozen value for input '" + in.name() + "' is " +
                               std::string(DTypeName(frozen->dtype)) +
                               ShapeToString(frozen->shape) + ", the model declares " +
                               std::string(DTypeName(dtype)) + ShapeToString(shape));
      }
      g.AddConstant(in.name(), dtype, shape,
                    ConstantBytes::Copy(frozen->bytes.data(), frozen->bytes.size()));
      continue;
    }
    Value v;
    v.name = in.name();
    v.dtype = dtype;
    v.shape = std::move(shape);
    v.shape_known = true;
    g.inputs().push_back(g.AddValue(std::move(v)));
  }

  // Nodes. Outputs are created as they appear; ONNX requires topological order, but a value
  // used before its producer is tolerated here and ordered by SortTopologically below.
  auto value_for_output = [&](const std::string& name,
                              const std::string& where) -> Expected<ValueId> {
    if (auto id = g.FindValue(name)) {
      const Value& v = g.value(*id);
      if (v.is_constant() || v.producer != kNoNode ||
          std::find(g.inputs().begin(), g.inputs().end(), *id) != g.inputs().end()) {
        return InvalidArgument(where + ": output '" + name + "' is already defined");
      }
      return *id;
    }
    Value v;
    v.name = name;
    if (auto h = hints.find(name); h != hints.end()) v.dtype = h->second;
    return g.AddValue(std::move(v));
  };

  std::vector<std::pair<NodeId, std::vector<std::string>>> pending_inputs;
  int index = 0;
  for (const auto& n : gp.node()) {
    const int node_index = index++;
    const std::string name =
        n.name().empty() ? n.op_type() + "_" + std::to_string(node_index) : n.name();
    const std::string where = "node '" + name + "' (" + n.op_type() + ")";
    if (!IsDefaultDomain(n.domain())) {
      return Unsupported(where + ": domain '" + n.domain() + "' is not supported");
    }
    if (n.op_type() == "Constant") {
      if (n.output_size() != 1) return InvalidArgument(where + ": must have one output");
      auto t = ConstantNodeValue(n, options.base_dir);
      if (!t.ok()) return t.status().WithContext(where);
      if (g.FindValue(n.output(0))) {
        return InvalidArgument(where + ": output '" + n.output(0) + "' is already defined");
      }
      HostTensor h = std::move(t).value();
      g.AddConstant(n.output(0), h.dtype, h.shape, ToConstant(std::move(h)));
      continue;
    }
    auto op = OpTypeFromName(n.op_type());
    if (!op) return Unsupported(where + ": op is not supported");
    Node node;
    node.name = name;
    node.op = *op;
    node.opset = options.opset;
    for (const auto& a : n.attribute()) {
      auto v = ConvertAttribute(a, options.base_dir);
      if (!v.ok()) return v.status().WithContext(where);
      node.attrs.Set(a.name(), std::move(v).value());
    }
    for (const auto& out : n.output()) {
      if (out.empty()) {
        node.outputs.push_back(kNoValue);
        continue;
      }
      KILN_ASSIGN_OR_RETURN(ValueId id, value_for_output(out, where));
      node.outputs.push_back(id);
    }
    // Inputs are resolved after every node has declared its outputs.
    pending_inputs.push_back({static_cast<NodeId>(g.num_nodes()),
                              std::vector<std::string>(n.input().begin(), n.input().end())});
    g.AddNode(std::move(node));
  }
  for (auto& [id, names] : pending_inputs) {
    Node& node = g.node(id);
    for (const auto& in : names) {
      if (in.empty()) {
        node.inputs.push_back(kNoValue);
        continue;
      }
      auto v = g.FindValue(in);
      if (!v) {
        return InvalidArgument("node '" + node.name + "' (" + std::string(OpTypeName(node.op)) +
                               "): input '" + in +
                               "' is not defined by any node, initializer "
                               "or graph input");
      }
      node.inputs.push_back(*v);
    }
  }

  for (const auto& [id, names] : pending_inputs) {
    KILN_RETURN_IF_ERROR(UpgradeNode(g, id, options.opset));
  }

  for (const auto& out : gp.output()) {
    auto v = g.FindValue(out.name());
    if (!v) return InvalidArgument("graph output '" + out.name() + "' is not produced");
    g.outputs().push_back(*v);
  }
  KILN_RETURN_IF_ERROR(g.SortTopologically());
  KILN_RETURN_IF_ERROR(UpgradeTypedForms(g));
  return g;
}

}  // namespace kiln
