// Flatbuffers encoding of the IR graph; constants go to the weights section, 64-byte aligned.
#include "serializer/graph_writer.h"

#include <cstring>
#include <variant>

#include "serializer/format.h"
#include "serializer/kiln_model_generated.h"

namespace kiln::format {
namespace {

using flatbuffers::FlatBufferBuilder;
using flatbuffers::Offset;

Offset<void> WriteAttr(FlatBufferBuilder& b, const AttrValue& value, fb::AttrValue* type) {
  struct Visitor {
    FlatBufferBuilder& b;
    fb::AttrValue* type;
    Offset<void> operator()(int64_t v) {
      *type = fb::AttrValue::IntAttr;
      return fb::CreateIntAttr(b, v).Union();
    }
    Offset<void> operator()(float v) {
      *type = fb::AttrValue::FloatAttr;
      return fb::CreateFloatAttr(b, v).Union();
    }
    Offset<void> operator()(const std::string& v) {
      *type = fb::AttrValue::StringAttr;
      return fb::CreateStringAttr(b, b.CreateString(v)).Union();
    }
    Offset<void> operator()(const std::vector<int64_t>& v) {
      *type = fb::AttrValue::IntsAttr;
      return fb::CreateIntsAttr(b, b.CreateVector(v)).Union();
    }
    Offset<void> operator()(const std::vector<float>& v) {
      *type = fb::AttrValue::FloatsAttr;
      return fb::CreateFloatsAttr(b, b.CreateVector(v)).Union();
    }
    Offset<void> operator()(const std::vector<std::string>& v) {
      *type = fb::AttrValue::StringsAttr;
      return fb::CreateStringsAttr(b, b.CreateVectorOfStrings(v)).Union();
    }
    Offset<void> operator()(const TensorAttr& t) {
      *type = fb::AttrValue::TensorAttr;
      auto shape = b.CreateVector(t.shape);
      auto data = b.CreateVector(t.bytes.data(), t.bytes.size());
      return fb::CreateTensorAttr(b, static_cast<fb::DType>(t.dtype), shape, data).Union();
    }
  };
  return std::visit(Visitor{b, type}, value);
}

}  // namespace

Expected<GraphSections> WriteGraphSections(const Graph& graph) {
  GraphSections out;
  FlatBufferBuilder b(1 << 16);
  std::vector<Offset<fb::Value>> values;
  for (const Value& v : graph.values()) {
    auto name = b.CreateString(v.name);
    auto shape = b.CreateVector(v.shape);
    Offset<fb::QuantParams> quant;
    if (!v.quant.empty() || !v.quant.zero_points.empty()) {
      quant = fb::CreateQuantParams(b, b.CreateVector(v.quant.scales),
                                    b.CreateVector(v.quant.zero_points), v.quant.axis);
    }
    fb::WeightRef ref;
    const bool is_const = v.constant.has_value();
    if (is_const) {
      if (v.constant->size() != v.byte_size()) {
        return InvalidArgument("constant '" + v.name + "' holds " +
                               std::to_string(v.constant->size()) + " bytes, expected " +
                               std::to_string(v.byte_size()));
      }
      const size_t offset = AlignUp(out.weights.size(), kTensorAlignment);
      out.weights.resize(offset + v.constant->size(), 0);
      if (v.constant->size()) {
        std::memcpy(out.weights.data() + offset, v.constant->data(), v.constant->size());
      }
      ref = fb::WeightRef(offset, v.constant->size());
    }
    fb::ValueBuilder vb(b);
    vb.add_name(name);
    vb.add_dtype(static_cast<fb::DType>(v.dtype));
    vb.add_shape(shape);
    vb.add_shape_known(v.shape_known);
    vb.add_layout(static_cast<fb::Layout>(v.layout));
    if (!quant.IsNull()) vb.add_quant(quant);
    if (is_const) vb.add_constant(&ref);
    values.push_back(vb.Finish());
  }
  std::vector<Offset<fb::Node>> nodes;
  for (const Node& n : graph.nodes()) {
    std::vector<Offset<fb::Attribute>> attrs;
    for (const auto& [name, value] : n.attrs.all()) {
      fb::AttrValue type = fb::AttrValue::NONE;
      auto payload = WriteAttr(b, value, &type);
      attrs.push_back(fb::CreateAttribute(b, b.CreateString(name), type, payload));
    }
    // Provenance is written only when it says more than the node's own name.
    flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<flatbuffers::String>>> sources;
    if (!(n.sources.size() == 1 && n.sources[0] == n.name)) {
      sources = b.CreateVectorOfStrings(n.sources);
    }
    nodes.push_back(fb::CreateNode(b, b.CreateString(n.name), static_cast<fb::OpType>(n.op),
                                   n.opset, b.CreateVector(n.inputs), b.CreateVector(n.outputs),
                                   b.CreateVector(attrs), b.CreateString(n.placement), sources));
  }
  auto root =
      fb::CreateGraph(b, b.CreateString(graph.name), b.CreateVector(values), b.CreateVector(nodes),
                      b.CreateVector(graph.inputs()), b.CreateVector(graph.outputs()));
  fb::FinishGraphBuffer(b, root);
  out.graph.assign(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
  return out;
}

std::vector<uint8_t> WriteMetadataSection(const ModelMetadata& m) {
  FlatBufferBuilder b(1024);
  std::vector<Offset<fb::KeyValue>> options;
  for (const auto& [k, v] : m.compile_options) {
    options.push_back(fb::CreateKeyValue(b, b.CreateString(k), b.CreateString(v)));
  }
  const auto producer = b.CreateString(m.producer);
  const auto producer_version = b.CreateString(m.producer_version);
  const auto source_sha256 = b.CreateString(m.source_sha256);
  const auto source_name = b.CreateString(m.source_name);
  const auto options_vec = b.CreateVector(options);
  const auto model_id = m.model_id.empty() ? 0 : b.CreateString(m.model_id);
  fb::MetadataBuilder mb(b);
  mb.add_producer(producer);
  mb.add_producer_version(producer_version);
  mb.add_source_sha256(source_sha256);
  mb.add_source_name(source_name);
  mb.add_compile_options(options_vec);
  mb.add_created_unix(m.created_unix);
  // 1.8 fields only when set: absent means none (optional scalars), not 0.
  if (!model_id.IsNull()) mb.add_model_id(model_id);
  if (m.model_version) mb.add_model_version(*m.model_version);
  if (m.not_before_unix) mb.add_not_before_unix(*m.not_before_unix);
  if (m.not_after_unix) mb.add_not_after_unix(*m.not_after_unix);
  b.Finish(mb.Finish());
  return std::vector<uint8_t>(b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize());
}

}  // namespace kiln::format
