// Importer: tensors, forms (plain NHWC / NCHW), Q/DQ, constants, node emission, outputs.
#include "parsers/tflite/tflite_importer.h"

#include <climits>
#include <cmath>
#include <cstring>
#include <set>

#include "ir/op_schema.h"
#include "parsers/tflite/tflite_ops.h"
#include "parsers/tflite/tflite_sparsity.h"

namespace kiln::tflite_import {
namespace {

Expected<DType> KilnDType(tflite::TensorType t, const std::string& tensor) {
  switch (t) {
    case tflite::TensorType::FLOAT32:
      return DType::kF32;
    case tflite::TensorType::FLOAT16:
      return DType::kF16;
    case tflite::TensorType::INT32:
      return DType::kI32;
    case tflite::TensorType::UINT8:
      return DType::kU8;
    case tflite::TensorType::INT64:
      return DType::kI64;
    case tflite::TensorType::BOOL:
      return DType::kBool;
    case tflite::TensorType::INT16:
      return DType::kI16;
    case tflite::TensorType::INT8:
      return DType::kI8;
    default: {
      const char* name = tflite::EnumNameTensorType(t);
      return Unsupported("tensor '" + tensor + "' has element type " +
                         (name && *name ? name : std::to_string(static_cast<int>(t))) +
                         ", which Kiln does not support");
    }
  }
}

std::string ShapeText(const std::vector<int64_t>& s) { return ShapeToString(s); }

std::vector<int64_t> Permuted(const std::vector<int64_t>& v, const std::vector<int64_t>& perm) {
  std::vector<int64_t> out(perm.size());
  for (size_t k = 0; k < perm.size(); ++k) out[k] = v[static_cast<size_t>(perm[k])];
  return out;
}

}  // namespace

int64_t NchwAxis(int64_t nhwc_axis) {
  static constexpr int64_t kMap[4] = {0, 2, 3, 1};
  return kMap[nhwc_axis];
}

Importer::Importer(const TfliteModel& model) : model_(model), subgraph_(model.main_graph()) {
  boundary_.name = "graph_io";
  boundary_.type = "graph boundary";
}

const tflite::Tensor& Importer::tensor(int i) const {
  return *subgraph_.tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
}

bool Importer::IsConstant(int i) const {
  auto data = model_.TensorData(tensor(i));
  return data.ok() && !data->empty();
}

Form Importer::HeldForm(int i) const {
  const Slot& s = slots_[static_cast<size_t>(i)];
  return s.stored[static_cast<int>(Form::kNchw)] != kNoValue ? Form::kNchw : Form::kPlain;
}

std::string Importer::FreshName(const std::string& base) {
  return graph_.UniqueValueName(base + "#" + std::to_string(fresh_++));
}

Status Importer::ReadQuantization(int i) {
  const tflite::Tensor& t = tensor(i);
  const tflite::QuantizationParameters* q = t.quantization();
  if (!q || !q->scale() || q->scale()->size() == 0) return Status::Ok();
  const DType type = dtypes_[static_cast<size_t>(i)];
  if (type == DType::kF32 || type == DType::kF16) return Status::Ok();  // calibration ranges only
  if (q->details_type() != tflite::QuantizationDetails::NONE) {
    return Unsupported("tensor '" + name(i) + "' uses custom quantization");
  }
  if (type != DType::kI8 && type != DType::kU8 && type != DType::kI16 && type != DType::kI32) {
    return Unsupported("tensor '" + name(i) + "' is quantized " + std::string(DTypeName(type)) +
                       "; Kiln reads int8, uint8, int16, int32");
  }
  QuantParams p;
  p.scales.assign(q->scale()->begin(), q->scale()->end());
  const size_t n = p.scales.size();
  if (q->zero_point() && q->zero_point()->size() > 0) {
    if (q->zero_point()->size() != n) {
      return InvalidArgument("tensor '" + name(i) + "' has " + std::to_string(n) + " scales and " +
                             std::to_string(q->zero_point()->size()) + " zero points");
    }
    // Copied bytewise: flatc 2.0.8's Verifier checks a vector's length prefix for 4-byte
    // alignment only, so an int64 vector may sit at 4 mod 8 (a misaligned load if read as is).
    p.zero_points.resize(n);
    std::memcpy(p.zero_points.data(), q->zero_point()->Data(), n * sizeof(int64_t));
  } else {
    p.zero_points.assign(n, 0);
  }
  const int64_t lo = type == DType::kI8    ? -128
                     : type == DType::kU8  ? 0
                     : type == DType::kI16 ? -32768
                                           : INT32_MIN;
  const int64_t hi = type == DType::kI8    ? 127
                     : type == DType::kU8  ? 255
                     : type == DType::kI16 ? 32767
                                           : INT32_MAX;
  for (size_t k = 0; k < n; ++k) {
    if (p.zero_points[k] < lo || p.zero_points[k] > hi) {
      return InvalidArgument("tensor '" + name(i) + "' has zero point " +
                             std::to_string(p.zero_points[k]) + ", outside the range of " +
                             std::string(DTypeName(type)));
    }
    if (!(p.scales[k] > 0.f) || !std::isfinite(p.scales[k])) {
      return InvalidArgument("tensor '" + name(i) + "' has scale " + std::to_string(p.scales[k]) +
                             "; scales must be positive and finite");
    }
  }
  if (n > 1) {
    const int64_t axis = q->quantized_dimension();
    const auto& s = shape(i);
    if (axis < 0 || axis >= static_cast<int64_t>(s.size()) ||
        s[static_cast<size_t>(axis)] != static_cast<int64_t>(n)) {
      return InvalidArgument("tensor '" + name(i) + "' " + ShapeText(s) + " has " +
                             std::to_string(n) + " scales along dimension " + std::to_string(axis));
    }
    p.axis = axis;
  }
  quant_[static_cast<size_t>(i)] = std::move(p);
  return Status::Ok();
}

Status Importer::CheckTyped(int i) const {
  if (dtype(i) != DType::kUndefined) return Status::Ok();
  return KilnDType(tensor(i).type(), name(i)).status().WithContext(Where());
}

Status Importer::DeclareTensors() {
  const size_t n = subgraph_.tensors() ? subgraph_.tensors()->size() : 0;
  shapes_.resize(n);
  dtypes_.resize(n, DType::kUndefined);
  names_.resize(n);
  quant_.resize(n);
  slots_.resize(n);
  std::set<std::string> seen;
  for (size_t k = 0; k < n; ++k) {
    const int i = static_cast<int>(k);
    std::string base = TensorName(tensor(i), i);
    if (!seen.insert(base).second) {
      base.push_back('_');  // (not "_" + to_string: GCC 12 warns falsely on that)
      base.append(std::to_string(i));
    }
    seen.insert(base);
    names_[k] = base;
  }
  return Status::Ok();
}

// A constant tensor becomes a graph constant the first time an operator reads it; its element
// type is checked then (an unused tensor of a type Kiln lacks does no harm).
Expected<ValueId> Importer::ConstantValue(int i) {
  Slot& s = slots_[static_cast<size_t>(i)];
  if (s.stored[0] != kNoValue) return s.stored[0];
  const tflite::Tensor& t = tensor(i);
  KILN_RETURN_IF_ERROR(CheckTyped(i));
  KILN_ASSIGN_OR_RETURN(auto data, model_.TensorData(t));
  if (data.empty()) {
    return InvalidArgument("tensor '" + name(i) + "' is read before any operator writes it");
  }
  if (t.sparsity()) {  // sparse weights (read through DENSIFY) are expanded here, once
    auto dense = Densify(*t.sparsity(), shape(i), DTypeSize(dtype(i)), data);
    if (!dense.ok()) return dense.status().WithContext("tensor '" + name(i) + "'");
    s.stored[0] = graph_.AddConstant(name(i), dtype(i), shape(i),
                                     ConstantBytes::FromVector(std::move(dense).value()));
    return s.stored[0];
  }
  int64_t elements = 1;
  for (int64_t d : shape(i)) {
    KILN_ASSIGN_OR_RETURN(elements, CheckedMul(elements, d, "tensor '" + name(i) + "' size"));
  }
  const DType type = dtype(i);
  if (static_cast<uint64_t>(elements) > data.size() / DTypeSize(type) ||
      static_cast<size_t>(elements) * DTypeSize(type) != data.size()) {
    return InvalidArgument("constant tensor '" + name(i) + "' " + ShapeText(shape(i)) + " " +
                           std::string(DTypeName(type)) + " needs " + std::to_string(elements) +
                           " elements, its buffer has " + std::to_string(data.size()) + " bytes");
  }
  s.stored[0] = graph_.AddConstant(names_[static_cast<size_t>(i)], type, shape(i),
                                   ConstantBytes::Copy(data.data(), data.size()));
  return s.stored[0];
}

Expected<ValueId> Importer::ConvertForm(int i, Form to) {
  if (rank(i) != 4) {
    return Internal("tensor '" + name(i) + "' of rank " + std::to_string(rank(i)) +
                    " asked for in NCHW form");
  }
  const Form from = to == Form::kNchw ? Form::kPlain : Form::kNchw;
  KILN_ASSIGN_OR_RETURN(ValueId src, Stored(i, from));
  Attributes a;
  a.Set("perm", to == Form::kNchw ? kToNchw : kToNhwc);
  KILN_ASSIGN_OR_RETURN(ValueId out, Emit(OpType::kTranspose, {src}, std::move(a)));
  // The plain form carries the model's tensor name (graph outputs keep it).
  if (to == Form::kPlain && !graph_.FindValue(name(i))) {
    KILN_RETURN_IF_ERROR(graph_.RenameValue(out, name(i)));
  }
  return out;
}

Expected<ValueId> Importer::Stored(int i, Form f) {
  Slot& s = slots_[static_cast<size_t>(i)];
  if (s.stored[static_cast<int>(f)] != kNoValue) return s.stored[static_cast<int>(f)];
  if (s.stored[0] == kNoValue && s.stored[1] == kNoValue) {
    KILN_RETURN_IF_ERROR(ConstantValue(i).status());
    if (f == Form::kPlain) return s.stored[0];
  }
  KILN_ASSIGN_OR_RETURN(ValueId v, ConvertForm(i, f));
  s.stored[static_cast<int>(f)] = v;
  return v;
}

std::vector<ValueId> Importer::QuantInputs(ValueId x, const QuantParams& q, DType type) {
  const bool per_axis = q.scales.size() > 1;
  const Shape param_shape = per_axis ? Shape{static_cast<int64_t>(q.scales.size())} : Shape{};
  const std::string base = graph_.value(x).name;
  std::vector<ValueId> inputs = {x};
  inputs.push_back(
      graph_.AddConstant(FreshName(base + "/scale"), DType::kF32, param_shape,
                         ConstantBytes::Copy(q.scales.data(), q.scales.size() * sizeof(float))));
  bool zero = true;
  for (int64_t z : q.zero_points) zero &= z == 0;
  if (zero && type == DType::kI32) return inputs;  // int32 biases: no zero point
  std::vector<uint8_t> bytes(q.zero_points.size() * DTypeSize(type));
  for (size_t k = 0; k < q.zero_points.size(); ++k) {
    const int64_t z = q.zero_points[k];
    switch (type) {
      case DType::kI8:
        reinterpret_cast<int8_t*>(bytes.data())[k] = static_cast<int8_t>(z);
        break;
      case DType::kU8:
        bytes[k] = static_cast<uint8_t>(z);
        break;
      case DType::kI16:
        reinterpret_cast<int16_t*>(bytes.data())[k] = static_cast<int16_t>(z);
        break;
      default:
        reinterpret_cast<int32_t*>(bytes.data())[k] = static_cast<int32_t>(z);
        break;
    }
  }
  inputs.push_back(graph_.AddConstant(FreshName(base + "/zero_point"), type, param_shape,
                                      ConstantBytes::FromVector(std::move(bytes))));
  return inputs;
}

Expected<ValueId> Importer::Dequantize(ValueId codes, const QuantParams& q, DType type) {
  Attributes a;
  if (q.scales.size() > 1) a.Set("axis", q.axis);
  return Emit(OpType::kDequantizeLinear, QuantInputs(codes, q, type), std::move(a));
}

Expected<ValueId> Importer::ToReal(int i, ValueId stored, int64_t axis) {
  KILN_RETURN_IF_ERROR(CheckTyped(i));
  if (IsQuantized(i)) {
    QuantParams q = quant(i);
    q.axis = axis;
    return Dequantize(stored, q, dtype(i));
  }
  if (dtype(i) == DType::kF16) {
    Attributes a;
    a.Set("to", int64_t{1});  // ONNX FLOAT
    return Emit(OpType::kCast, {stored}, std::move(a));
  }
  if (dtype(i) != DType::kF32) {
    return Unsupported(Where() + ": tensor '" + name(i) + "' is " +
                       std::string(DTypeName(dtype(i))) +
                       " without quantization parameters, where a real value is read");
  }
  return stored;
}

Expected<ValueId> Importer::Real(int i, Form f) {
  Slot& s = slots_[static_cast<size_t>(i)];
  if (s.real[static_cast<int>(f)] != kNoValue) return s.real[static_cast<int>(f)];
  KILN_ASSIGN_OR_RETURN(ValueId stored, Stored(i, f));
  int64_t axis = quant(i).axis;
  if (axis >= 0 && f == Form::kNchw) axis = NchwAxis(axis);
  KILN_ASSIGN_OR_RETURN(ValueId real, ToReal(i, stored, axis));
  s.real[static_cast<int>(f)] = real;
  return real;
}

Expected<ValueId> Importer::RealAsNchw(int i) {
  if (rank(i) == 4) return Real(i, Form::kNchw);
  if (rank(i) > 4) {
    return InvalidArgument(Where() + ": tensor '" + name(i) + "' of rank " +
                           std::to_string(rank(i)) + " broadcast against rank 4");
  }
  int64_t elements = 1;
  for (int64_t d : shape(i)) {
    KILN_ASSIGN_OR_RETURN(elements, CheckedMul(elements, d, "tensor '" + name(i) + "' size"));
  }
  if (elements == 1) return Real(i, Form::kPlain);  // broadcasts as it is
  // Codes are reshaped and transposed before they are dequantized, so a constant operand
  // folds into a constant in NCHW order and its DequantizeLinear stays next to the op.
  const int64_t lead = 4 - rank(i);
  std::vector<int64_t> nhwc(static_cast<size_t>(lead), 1);
  nhwc.insert(nhwc.end(), shape(i).begin(), shape(i).end());
  KILN_ASSIGN_OR_RETURN(ValueId v, Stored(i, Form::kPlain));
  KILN_ASSIGN_OR_RETURN(v, ReshapeTo(v, nhwc));
  Attributes a;
  a.Set("perm", kToNchw);
  KILN_ASSIGN_OR_RETURN(v, Emit(OpType::kTranspose, {v}, std::move(a)));
  const int64_t axis = quant(i).axis >= 0 ? NchwAxis(quant(i).axis + lead) : -1;
  return ToReal(i, v, axis);
}

Expected<ValueId> Importer::Weight(int i, const std::vector<int64_t>& perm) {
  // Weights written by an op (DEQUANTIZE of float16 weights) are read as real values; the
  // Cast and Transpose of a constant fold into an f32 constant at import.
  const bool constant = IsConstant(i);
  ValueId v;
  if (constant) {
    KILN_ASSIGN_OR_RETURN(v, Stored(i, Form::kPlain));
  } else {
    KILN_ASSIGN_OR_RETURN(v, Real(i, Form::kPlain));
  }
  if (!perm.empty()) {
    if (perm.size() != shape(i).size()) {
      return InvalidArgument(op().type + " '" + op().name + "': weights '" + name(i) + "' " +
                             ShapeText(shape(i)) + " must have rank " +
                             std::to_string(perm.size()));
    }
    Attributes a;
    a.Set("perm", perm);
    KILN_ASSIGN_OR_RETURN(v, Emit(OpType::kTranspose, {v}, std::move(a)));
  }
  if (!constant) return v;
  int64_t axis = quant(i).axis;
  for (size_t k = 0; k < perm.size() && quant(i).axis >= 0; ++k) {
    if (perm[k] == quant(i).axis) axis = static_cast<int64_t>(k);
  }
  return ToReal(i, v, axis);
}

Expected<std::vector<int64_t>> Importer::ConstantInts(int i) const {
  if (i < 0)
    return InvalidArgument(op().type + " '" + op().name + "': a required input is omitted");
  auto data = model_.TensorData(tensor(i));
  if (!data.ok()) return data.status();
  if (data->empty()) {
    return Unsupported(op().type + " '" + op().name + "': input '" + name(i) +
                       "' must be constant (Kiln compiles static shapes)");
  }
  std::vector<int64_t> out;
  if (dtype(i) == DType::kI32 && data->size() % 4 == 0) {
    for (size_t k = 0; k < data->size(); k += 4) {
      int32_t v;
      std::memcpy(&v, data->data() + k, 4);
      out.push_back(v);
    }
  } else if (dtype(i) == DType::kI64 && data->size() % 8 == 0) {
    for (size_t k = 0; k < data->size(); k += 8) {
      int64_t v;
      std::memcpy(&v, data->data() + k, 8);
      out.push_back(v);
    }
  } else {
    return InvalidArgument(op().type + " '" + op().name + "': input '" + name(i) +
                           "' must be int32 or int64");
  }
  return out;
}

Expected<ValueId> Importer::Emit(OpType type, std::vector<ValueId> inputs, Attributes attrs) {
  Node n;
  n.name = op().name + "/" + std::string(OpTypeName(type)) + "_" + std::to_string(fresh_);
  n.op = type;
  n.inputs = std::move(inputs);
  n.attrs = std::move(attrs);
  n.sources = {op().name};
  Value out;
  out.name = FreshName(op().name);
  n.outputs = {graph_.AddValue(std::move(out))};
  const ValueId result = n.outputs[0];
  const NodeId id = graph_.AddNode(std::move(n));
  Status st = InferNode(graph_, id);
  if (!st.ok()) return st.WithContext(Where());
  return result;
}

ValueId Importer::ConstI64(const std::vector<int64_t>& values) {
  return graph_.AddConstant(FreshName(op().name + "/const"), DType::kI64,
                            {static_cast<int64_t>(values.size())},
                            ConstantBytes::Copy(values.data(), values.size() * sizeof(int64_t)));
}

ValueId Importer::ConstF32(float value) {
  return graph_.AddConstant(FreshName(op().name + "/const"), DType::kF32, {},
                            ConstantBytes::Copy(&value, sizeof(float)));
}

std::string Importer::Where() const {
  return "operator " + std::to_string(op().index) + " (" + op().type + ") '" + op().name + "'";
}

Expected<ValueId> Importer::ReshapeTo(ValueId x, const std::vector<int64_t>& shape) {
  return Emit(OpType::kReshape, {x, ConstI64(shape)});
}

Expected<ValueId> Importer::Activation(ValueId x, tflite::ActivationFunctionType act) {
  using A = tflite::ActivationFunctionType;
  switch (act) {
    case A::NONE:
      return x;
    case A::RELU:
      return Emit(OpType::kRelu, {x});
    case A::RELU6:
      return Emit(OpType::kClip, {x, ConstF32(0.f), ConstF32(6.f)});
    case A::RELU_N1_TO_1:
      return Emit(OpType::kClip, {x, ConstF32(-1.f), ConstF32(1.f)});
    case A::TANH:
      return Emit(OpType::kTanh, {x});
    default: {
      const char* n = tflite::EnumNameActivationFunctionType(act);
      return Unsupported(op().type + " '" + op().name + "': fused activation " +
                         (n && *n ? n : std::to_string(static_cast<int>(act))));
    }
  }
}

Status Importer::Define(int i, ValueId real, Form f) {
  KILN_RETURN_IF_ERROR(CheckTyped(i));
  ValueId stored = real;
  if (IsQuantized(i)) {
    QuantParams q = quant(i);
    if (q.scales.size() != 1) {
      return Unsupported("tensor '" + name(i) + "': per-channel quantized activations");
    }
    KILN_ASSIGN_OR_RETURN(stored, Emit(OpType::kQuantizeLinear, QuantInputs(real, q, dtype(i))));
  } else if (dtype(i) != DType::kF32) {
    return Unsupported("operator " + std::to_string(op().index) + " (" + op().type +
                       ") writes tensor '" + name(i) + "' as " + std::string(DTypeName(dtype(i))) +
                       " without quantization parameters");
  }
  return DefineStored(i, stored, f);
}

Status Importer::DefineStored(int i, ValueId stored, Form f) {
  KILN_RETURN_IF_ERROR(CheckTyped(i));
  Slot& s = slots_[static_cast<size_t>(i)];
  if (s.stored[0] != kNoValue || s.stored[1] != kNoValue || IsConstant(i)) {
    return InvalidArgument("operator " + std::to_string(op().index) + " (" + op().type +
                           ") writes tensor '" + name(i) + "', which is already defined");
  }
  if (graph_.value(stored).dtype != dtype(i)) {
    return InvalidArgument(Where() + ": tensor '" + name(i) + "' is declared " +
                           std::string(DTypeName(dtype(i))) + ", but its input is " +
                           std::string(DTypeName(graph_.value(stored).dtype)));
  }
  // A value from before this op (a DEQUANTIZE of a float tensor) gets a node of its own, so that
  // the tensor has a value to name.
  if (stored < first_value_of_op_) {
    KILN_ASSIGN_OR_RETURN(stored, Emit(OpType::kIdentity, {stored}));
  }
  if (f == Form::kNchw && rank(i) != 4) {
    return InvalidArgument(Where() + ": tensor '" + name(i) + "' is declared " +
                           ShapeText(shape(i)) + ", but its inputs give a rank-4 result");
  }
  std::vector<int64_t> want = shape(i);
  if (f == Form::kNchw) want = Permuted(want, kToNchw);
  const Value& v = graph_.value(stored);
  if (v.shape != want) {
    return InvalidArgument("operator " + std::to_string(op().index) + " (" + op().type + ") '" +
                           op().name + "': tensor '" + name(i) + "' is declared " +
                           ShapeText(shape(i)) + (f == Form::kNchw ? " (NHWC)" : "") +
                           ", but its inputs give " + ShapeText(v.shape) +
                           (f == Form::kNchw ? " (NCHW)" : ""));
  }
  const std::string canonical = f == Form::kPlain ? name(i) : name(i) + "#nchw";
  if (!graph_.FindValue(canonical)) KILN_RETURN_IF_ERROR(graph_.RenameValue(stored, canonical));
  s.stored[static_cast<int>(f)] = stored;
  return Status::Ok();
}

Status Importer::ImportOperator(int index) {
  const tflite::Operator& op =
      *subgraph_.operators()->Get(static_cast<flatbuffers::uoffset_t>(index));
  OpContext ctx;
  ctx.op = &op;
  ctx.index = index;
  ctx.type = model_.op_code(op).Name();
  if (op.inputs()) ctx.inputs.assign(op.inputs()->begin(), op.inputs()->end());
  if (op.outputs()) ctx.outputs.assign(op.outputs()->begin(), op.outputs()->end());
  if (ctx.outputs.empty()) {
    return InvalidArgument("operator " + std::to_string(index) + " (" + ctx.type +
                           ") has no output");
  }
  ctx.name = name(ctx.outputs[0]);
  op_ = &ctx;
  first_value_of_op_ = static_cast<ValueId>(graph_.num_values());
  Status st = ConvertOperator(*this, model_.op_code(op).builtin);
  op_ = &boundary_;
  return st;
}

Expected<Graph> Importer::Run() {
  op_ = &boundary_;
  KILN_RETURN_IF_ERROR(DeclareTensors());
  const size_t n = shapes_.size();
  for (size_t k = 0; k < n; ++k) {
    const int i = static_cast<int>(k);
    KILN_ASSIGN_OR_RETURN(shapes_[k], TensorShape(tensor(i), i));
    auto type = KilnDType(tensor(i).type(), name(i));
    if (type.ok()) {
      dtypes_[k] = *type;
      KILN_RETURN_IF_ERROR(ReadQuantization(i));
    }
  }
  // Every op is supported before any is converted: one error names them all.
  KILN_RETURN_IF_ERROR(CheckOpsSupported(model_));
  graph_.name = subgraph_.name() ? subgraph_.name()->str() : "tflite";
  if (subgraph_.inputs()) {
    for (int32_t i : *subgraph_.inputs()) {
      KILN_RETURN_IF_ERROR(KilnDType(tensor(i).type(), name(i)).status());
      Slot& s = slots_[static_cast<size_t>(i)];
      if (s.stored[0] != kNoValue || IsConstant(i)) {
        return InvalidArgument("graph input '" + name(i) + "' is listed twice or is a constant");
      }
      Value v;
      v.name = name(i);
      v.dtype = dtype(i);
      v.shape = shape(i);
      v.shape_known = true;
      s.stored[0] = graph_.AddValue(std::move(v));
      graph_.inputs().push_back(s.stored[0]);
    }
  }
  if (subgraph_.operators()) {
    for (flatbuffers::uoffset_t k = 0; k < subgraph_.operators()->size(); ++k) {
      KILN_RETURN_IF_ERROR(ImportOperator(static_cast<int>(k)));
    }
  }
  if (subgraph_.outputs()) {
    std::set<int> seen;
    for (int32_t i : *subgraph_.outputs()) {
      if (!seen.insert(i).second) {
        return Unsupported("graph output '" + name(i) + "' is listed twice");
      }
      KILN_ASSIGN_OR_RETURN(ValueId v, Stored(i, Form::kPlain));
      if (graph_.value(v).name != name(i)) {
        return Unsupported("graph output '" + name(i) + "' is also an input of the graph");
      }
      graph_.outputs().push_back(v);
    }
  }
  KILN_RETURN_IF_ERROR(graph_.SortTopologically());
  return std::move(graph_);
}

}  // namespace kiln::tflite_import
