// Flatbuffers graph section -> IR Graph. Everything read from the buffer is treated as hostile:
// the flatbuffers Verifier bounds every offset, and this file bounds every value it uses.
#include "serializer/graph_reader.h"

#include <algorithm>
#include <unordered_set>

#include "ir/op_schema.h"
#include "serializer/kiln_model_generated.h"
#include "serializer/model_identity.h"

namespace kiln::format {
namespace {

// Largest tensor this runtime will describe: far above any real model, far below overflow.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;
constexpr size_t kMaxRank = 16;

Status Schema(const std::string& what) { return DataLoss("schema: " + what); }

// The flatbuffers Verifier checks a vector's 4-byte length prefix, not that 8-byte elements
// are 8-byte aligned; reading a misaligned int64 vector would be undefined behaviour.
template <typename T>
Status CheckAligned(const flatbuffers::Vector<T>* v, const std::string& where) {
  if (v != nullptr && v->size() != 0 && reinterpret_cast<uintptr_t>(v->data()) % alignof(T) != 0) {
    return Schema(where + ": misaligned vector");
  }
  return Status::Ok();
}

Expected<DType> ReadDType(fb::DType t, const std::string& where) {
  const auto v = static_cast<int32_t>(t);
  if (v < 0 || v > static_cast<int32_t>(DType::kI16)) {
    return Schema(where + ": unknown dtype " + std::to_string(v));
  }
  return static_cast<DType>(v);
}

// Shape with non-negative dims whose byte size (for `dtype`) stays under kMaxTensorBytes.
Expected<Shape> ReadShape(const flatbuffers::Vector<int64_t>* dims, DType dtype,
                          const std::string& where) {
  Shape shape;
  if (dims == nullptr) return shape;
  KILN_RETURN_IF_ERROR(CheckAligned(dims, where));
  if (dims->size() > kMaxRank) return Schema(where + ": rank " + std::to_string(dims->size()));
  uint64_t bytes = std::max<size_t>(DTypeSize(dtype), 1);
  for (int64_t d : *dims) {
    if (d < 0) return Schema(where + ": negative dimension " + std::to_string(d));
    if (d != 0 && bytes > kMaxTensorBytes / static_cast<uint64_t>(d)) {
      return Schema(where + ": shape is too large");
    }
    bytes *= static_cast<uint64_t>(d == 0 ? 1 : d);
    shape.push_back(d);
  }
  return shape;
}

Expected<AttrValue> ReadAttr(const fb::Attribute& a, const std::string& where) {
  // The Verifier accepts a union type whose value table is absent.
  if (a.value() == nullptr) return Schema(where + ": attribute has no value");
  switch (a.value_type()) {
    case fb::AttrValue::IntAttr:
      return AttrValue(a.value_as_IntAttr()->value());
    case fb::AttrValue::FloatAttr:
      return AttrValue(a.value_as_FloatAttr()->value());
    case fb::AttrValue::StringAttr: {
      const auto* s = a.value_as_StringAttr()->value();
      return AttrValue(s ? s->str() : std::string());
    }
    case fb::AttrValue::IntsAttr: {
      std::vector<int64_t> v;
      if (const auto* x = a.value_as_IntsAttr()->values()) {
        KILN_RETURN_IF_ERROR(CheckAligned(x, where));
        v.assign(x->begin(), x->end());
      }
      return AttrValue(std::move(v));
    }
    case fb::AttrValue::FloatsAttr: {
      std::vector<float> v;
      if (const auto* x = a.value_as_FloatsAttr()->values()) v.assign(x->begin(), x->end());
      return AttrValue(std::move(v));
    }
    case fb::AttrValue::StringsAttr: {
      std::vector<std::string> v;
      if (const auto* x = a.value_as_StringsAttr()->values()) {
        for (const auto* s : *x) v.push_back(s ? s->str() : std::string());
      }
      return AttrValue(std::move(v));
    }
    case fb::AttrValue::TensorAttr: {
      const fb::TensorAttr* t = a.value_as_TensorAttr();
      TensorAttr out;
      KILN_ASSIGN_OR_RETURN(out.dtype, ReadDType(t->dtype(), where));
      KILN_ASSIGN_OR_RETURN(out.shape, ReadShape(t->shape(), out.dtype, where));
      const size_t expected = static_cast<size_t>(NumElements(out.shape)) * DTypeSize(out.dtype);
      const size_t got = t->data() ? t->data()->size() : 0;
      if (got != expected) {
        return Schema(where + ": tensor holds " + std::to_string(got) + " bytes, expected " +
                      std::to_string(expected));
      }
      out.bytes = ConstantBytes::Copy(t->data() ? t->data()->data() : nullptr, got);
      return AttrValue(std::move(out));
    }
    default:
      break;
  }
  return Schema(where + ": attribute of unknown type " +
                std::to_string(static_cast<int>(a.value_type())));
}

bool KnownOp(int32_t v) {
  static const std::unordered_set<int32_t> known = [] {
    std::unordered_set<int32_t> s;
    size_t n = 0;
    const OpType* ops = AllOpTypes(&n);
    for (size_t i = 0; i < n; ++i) s.insert(static_cast<int32_t>(ops[i]));
    return s;
  }();
  return known.count(v) != 0;
}

Status ReadIds(const flatbuffers::Vector<int32_t>* ids, size_t num_values, bool allow_none,
               const std::string& where, std::vector<ValueId>* out) {
  if (ids == nullptr) return Status::Ok();
  for (int32_t id : *ids) {
    if ((id == kNoValue && allow_none) || (id >= 0 && static_cast<size_t>(id) < num_values)) {
      out->push_back(id);
      continue;
    }
    return Schema(where + ": value id " + std::to_string(id) + " out of range");
  }
  return Status::Ok();
}

Expected<Value> ReadValue(const fb::Value& fv, const SectionBytes& weights) {
  Value v;
  v.name = fv.name()->str();
  const std::string where = "value '" + v.name + "'";
  KILN_ASSIGN_OR_RETURN(v.dtype, ReadDType(fv.dtype(), where));
  KILN_ASSIGN_OR_RETURN(v.shape, ReadShape(fv.shape(), v.dtype, where));
  v.shape_known = fv.shape_known();
  const auto layout = static_cast<int32_t>(fv.layout());
  if (!IsValidLayout(layout)) {
    return Schema(where + ": unknown layout " + std::to_string(layout));
  }
  v.layout = static_cast<Layout>(layout);
  if (const fb::QuantParams* q = fv.quant()) {
    if (q->scales()) v.quant.scales.assign(q->scales()->begin(), q->scales()->end());
    if (q->zero_points()) {
      KILN_RETURN_IF_ERROR(CheckAligned(q->zero_points(), where));
      v.quant.zero_points.assign(q->zero_points()->begin(), q->zero_points()->end());
    }
    v.quant.axis = q->axis();
  }
  if (const fb::WeightRef* w = fv.constant()) {
    const uint64_t off = w->offset(), size = w->size();
    if (off > weights.size || size > weights.size - off) {
      return Schema(where + ": weight range [" + std::to_string(off) + ", +" +
                    std::to_string(size) + ") is outside the " + std::to_string(weights.size) +
                    "-byte weights section");
    }
    if (off % kTensorAlignment != 0) return Schema(where + ": weight offset is not 64-aligned");
    if (size != v.byte_size()) {
      return Schema(where + ": weight holds " + std::to_string(size) + " bytes, expected " +
                    std::to_string(v.byte_size()));
    }
    v.constant = ConstantBytes::Borrow(weights.owner, weights.data + off, size);
  }
  return v;
}

// Inputs/outputs below the schema's minimum count are required: shape inference indexes them
// without checking for kNoValue (ONNX only omits optional, trailing-position slots).
Status CheckRequiredSlots(const Node& n, const std::string& where) {
  const OpSchema* schema = SchemaRegistry::Global().Find(n.op);
  if (schema == nullptr) return Schema(where + ": op has no schema");
  for (size_t i = 0; i < n.inputs.size() && i < static_cast<size_t>(schema->min_inputs); ++i) {
    if (n.inputs[i] == kNoValue) {
      return Schema(where + ": required input " + std::to_string(i) + " is omitted");
    }
  }
  for (size_t i = 0; i < n.outputs.size() && i < static_cast<size_t>(schema->min_outputs); ++i) {
    if (n.outputs[i] == kNoValue) {
      return Schema(where + ": required output " + std::to_string(i) + " is omitted");
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<Graph> ReadGraph(const SectionBytes& section, const SectionBytes& weights) {
  flatbuffers::Verifier verifier(section.data, section.size);
  if (!fb::VerifyGraphBuffer(verifier)) {
    return Schema("graph section fails flatbuffers verification");
  }
  const fb::Graph* fg = fb::GetGraph(section.data);
  Graph g;
  if (fg->name()) g.name = fg->name()->str();
  const size_t num_values = fg->values() ? fg->values()->size() : 0;
  std::unordered_set<std::string> names;
  if (fg->values()) {
    for (const fb::Value* fv : *fg->values()) {
      KILN_ASSIGN_OR_RETURN(Value v, ReadValue(*fv, weights));
      if (!names.insert(v.name).second) return Schema("duplicate value name '" + v.name + "'");
      g.AddValue(std::move(v));
    }
  }
  if (fg->nodes()) {
    for (const fb::Node* fn : *fg->nodes()) {
      Node n;
      if (fn->name()) n.name = fn->name()->str();
      const std::string where = "node '" + n.name + "'";
      const auto op = static_cast<int32_t>(fn->op());
      if (!KnownOp(op)) return Schema(where + ": unknown op value " + std::to_string(op));
      n.op = static_cast<OpType>(op);
      n.opset = fn->opset();
      KILN_RETURN_IF_ERROR(ReadIds(fn->inputs(), num_values, true, where, &n.inputs));
      KILN_RETURN_IF_ERROR(ReadIds(fn->outputs(), num_values, true, where, &n.outputs));
      KILN_RETURN_IF_ERROR(CheckRequiredSlots(n, where));
      if (fn->attributes()) {
        for (const fb::Attribute* a : *fn->attributes()) {
          const std::string aw = where + " attribute '" + a->name()->str() + "'";
          KILN_ASSIGN_OR_RETURN(AttrValue value, ReadAttr(*a, aw));
          n.attrs.Set(a->name()->str(), std::move(value));
        }
      }
      if (fn->placement()) n.placement = fn->placement()->str();
      if (fn->sources()) {
        for (const flatbuffers::String* src : *fn->sources()) {
          if (src) n.sources.push_back(src->str());
        }
      }
      g.AddNode(std::move(n));  // absent sources: the node's own name (files before 1.1)
    }
  }
  KILN_RETURN_IF_ERROR(ReadIds(fg->inputs(), num_values, false, "graph inputs", &g.inputs()));
  KILN_RETURN_IF_ERROR(ReadIds(fg->outputs(), num_values, false, "graph outputs", &g.outputs()));
  return g;
}

Expected<ModelMetadata> ReadMetadata(const SectionBytes& section) {
  flatbuffers::Verifier verifier(section.data, section.size);
  if (!verifier.VerifyBuffer<fb::Metadata>(nullptr)) {
    return Schema("metadata section fails flatbuffers verification");
  }
  const auto* fm = flatbuffers::GetRoot<fb::Metadata>(section.data);
  ModelMetadata m;
  auto str = [](const flatbuffers::String* s) { return s ? s->str() : std::string(); };
  m.producer = str(fm->producer());
  m.producer_version = str(fm->producer_version());
  m.source_sha256 = str(fm->source_sha256());
  m.source_name = str(fm->source_name());
  m.created_unix = fm->created_unix();
  if (fm->compile_options()) {
    for (const fb::KeyValue* kv : *fm->compile_options()) {
      m.compile_options.emplace_back(kv->key()->str(), str(kv->value()));
    }
  }
  // 1.8: identity and validity (absent in older files). Signed, but still checked for syntax:
  // the id is printed and used as a counter-file key.
  m.model_id = str(fm->model_id());
  if (fm->model_version()) m.model_version = *fm->model_version();
  if (fm->not_before_unix()) m.not_before_unix = *fm->not_before_unix();
  if (fm->not_after_unix()) m.not_after_unix = *fm->not_after_unix();
  Status identity = CheckModelIdentity(m);
  if (!identity.ok()) return Schema("metadata: " + identity.message());
  return m;
}

}  // namespace kiln::format
