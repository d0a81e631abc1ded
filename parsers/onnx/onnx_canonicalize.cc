// Softmax-before-13 rewrite and leftover-attribute cleanup around the version converter.
#include "parsers/onnx/onnx_canonicalize.h"

#include <onnx/shape_inference/implementation.h>

#include <unordered_map>

namespace kiln {
namespace {

int64_t GetIntAttr(const onnx::NodeProto& node, const std::string& name, int64_t def) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return a.i();
  }
  return def;
}

void SetIntAttr(onnx::NodeProto& node, const std::string& name, int64_t value) {
  for (auto& a : *node.mutable_attribute()) {
    if (a.name() == name) {
      a.set_i(value);
      return;
    }
  }
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(value);
}

void EraseAttr(onnx::NodeProto& node, const std::string& name) {
  auto* attrs = node.mutable_attribute();
  for (int i = 0; i < attrs->size(); ++i) {
    if (attrs->Get(i).name() == name) {
      attrs->DeleteSubrange(i, 1);
      return;
    }
  }
}

// Ranks of every value whose type onnx's shape inference (with data propagation) can tell.
std::unordered_map<std::string, int> KnownRanks(const onnx::ModelProto& model) {
  onnx::ModelProto copy = model;
  try {
    onnx::shape_inference::InferShapes(copy, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
  } catch (const std::exception&) {
    // Partial results are still useful; unknown ranks take the generic rewrite.
  }
  std::unordered_map<std::string, int> ranks;
  auto note = [&](const onnx::ValueInfoProto& vi) {
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape()) {
      ranks[vi.name()] = vi.type().tensor_type().shape().dim_size();
    }
  };
  for (const auto& vi : copy.graph().input()) note(vi);
  for (const auto& vi : copy.graph().value_info()) note(vi);
  for (const auto& vi : copy.graph().output()) note(vi);
  for (const auto& t : copy.graph().initializer()) ranks[t.name()] = t.dims_size();
  return ranks;
}

}  // namespace

Status CanonicalizeBeforeConversion(onnx::ModelProto& model, int64_t opset) {
  if (opset >= 13) return Status::Ok();
  bool any = false;
  for (const auto& n : model.graph().node()) {
    any |= (n.domain().empty() || n.domain() == "ai.onnx") &&
           (n.op_type() == "Softmax" || n.op_type() == "LogSoftmax");
  }
  if (!any) return Status::Ok();
  const auto ranks = KnownRanks(model);

  onnx::GraphProto* g = model.mutable_graph();
  google::protobuf::RepeatedPtrField<onnx::NodeProto> rewritten;
  int counter = 0;
  for (auto& node : *g->mutable_node()) {
    const bool is_softmax = (node.domain().empty() || node.domain() == "ai.onnx") &&
                            (node.op_type() == "Softmax" || node.op_type() == "LogSoftmax");
    if (!is_softmax || node.input_size() < 1 || node.output_size() < 1) {
      *rewritten.Add() = std::move(node);
      continue;
    }
    const std::string x = node.input(0);
    int64_t axis = GetIntAttr(node, "axis", 1);
    auto it = ranks.find(x);
    if (it != ranks.end()) {
      const int64_t rank = it->second;
      if (axis < -rank || axis >= std::max<int64_t>(rank, 1)) {
        return InvalidArgument("node '" + node.name() + "' (" + node.op_type() + "): axis " +
                               std::to_string(axis) + " out of range for rank " +
                               std::to_string(rank));
      }
      if (axis < 0) axis += rank;
      if (axis == rank - 1 || rank <= 1) {  // same meaning in both versions
        SetIntAttr(node, "axis", -1);
        *rewritten.Add() = std::move(node);
        continue;
      }
    }
    // Generic form: Flatten(x, axis) -> Softmax(axis=-1) -> Reshape(., Shape(x)).
    const std::string base =
        node.name().empty() ? node.op_type() + "_" + std::to_string(counter) : node.name();
    const std::string out = node.output(0);
    const std::string tag = "__kiln_sm" + std::to_string(counter++);
    const std::string flat = out + tag + "_flat";
    const std::string soft = out + tag + "_2d";
    const std::string shape = out + tag + "_shape";

    onnx::NodeProto* f = rewritten.Add();
    f->set_op_type("Flatten");
    f->set_name(base + "/flatten");
    f->add_input(x);
    f->add_output(flat);
    SetIntAttr(*f, "axis", axis);

    onnx::NodeProto* s = rewritten.Add();
    s->set_op_type(node.op_type());
    s->set_name(base);
    s->add_input(flat);
    s->add_output(soft);
    SetIntAttr(*s, "axis", -1);

    onnx::NodeProto* sh = rewritten.Add();
    sh->set_op_type("Shape");
    sh->set_name(base + "/shape");
    sh->add_input(x);
    sh->add_output(shape);

    onnx::NodeProto* r = rewritten.Add();
    r->set_op_type("Reshape");
    r->set_name(base + "/reshape");
    r->add_input(soft);
    r->add_input(shape);
    r->add_output(out);
  }
  g->mutable_node()->Swap(&rewritten);
  return Status::Ok();
}

Status CanonicalizeAfterConversion(onnx::ModelProto& model) {
  for (auto& node : *model.mutable_graph()->mutable_node()) {
    if (!node.domain().empty() && node.domain() != "ai.onnx") continue;
    if (node.op_type() == "BatchNormalization") {
      if (GetIntAttr(node, "spatial", 1) != 1) {
        return Unsupported("node '" + node.name() +
                           "' (BatchNormalization): spatial=0 (per-element statistics) is not "
                           "supported");
      }
      EraseAttr(node, "spatial");
      EraseAttr(node, "is_test");
      EraseAttr(node, "consumed_inputs");
    } else if (node.op_type() == "Dropout") {
      EraseAttr(node, "is_test");
    }
  }
  return Status::Ok();
}

}  // namespace kiln
