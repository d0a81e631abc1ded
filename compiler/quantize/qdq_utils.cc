// Q/DQ matching and construction for the quantization passes.
#include "compiler/quantize/qdq_utils.h"

#include <cmath>
#include <cstring>

#include "compiler/rewrite_utils.h"
#include "quant/quant_math.h"

namespace kiln::quant {

std::optional<QuantParams> ReadQdqParams(const Graph& g, const Node& n) {
  if (n.inputs.size() < 2 || n.inputs[1] == kNoValue) return std::nullopt;
  const Value& scale = g.value(n.inputs[1]);
  auto scales = ConstantFloats(scale);
  if (!scales || scales->empty()) return std::nullopt;
  QuantParams q;
  q.scales = *scales;
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    const Value& zp = g.value(n.inputs[2]);
    if (!zp.is_constant() || zp.num_elements() != static_cast<int64_t>(scales->size())) {
      return std::nullopt;
    }
    for (int64_t i = 0; i < zp.num_elements(); ++i) {
      int64_t z = 0;
      switch (zp.dtype) {
        case DType::kU8:
          z = zp.constant->as<uint8_t>()[i];
          break;
        case DType::kI8:
          z = zp.constant->as<int8_t>()[i];
          break;
        case DType::kI16:
          z = zp.constant->as<int16_t>()[i];
          break;
        case DType::kI32:
          z = zp.constant->as<int32_t>()[i];
          break;
        default:
          return std::nullopt;
      }
      q.zero_points.push_back(z);
    }
  } else {
    q.zero_points.assign(scales->size(), 0);
  }
  for (float s : q.scales) {
    if (!(s > 0) || !std::isfinite(s)) return std::nullopt;
  }
  if (scales->size() > 1 || scale.shape.size() == 1) {
    // Per-axis (a 1-D scale of one element is per-axis too in ONNX; treat it as per tensor).
    if (scales->size() > 1) {
      int64_t axis = n.attrs.GetInt("axis", 1);
      const int64_t rank = static_cast<int64_t>(g.value(n.inputs[0]).shape.size());
      if (!NormalizeAxis(axis, rank)) return std::nullopt;
      q.axis = axis;
    }
  }
  return q;
}

std::optional<DqMatch> MatchDq(const GraphRewriter& rw, ValueId v) {
  if (v == kNoValue) return std::nullopt;
  auto p = rw.Producer(v);
  if (!p) return std::nullopt;
  const Node& n = rw.node(*p);
  if (n.op != OpType::kDequantizeLinear) return std::nullopt;
  const ValueId in = n.inputs[0];
  const DType t = rw.value(in).dtype;
  if (t != DType::kU8 && t != DType::kI8 && t != DType::kI16 && t != DType::kI32) {
    return std::nullopt;
  }
  auto q = ReadQdqParams(rw.graph(), n);
  if (!q) return std::nullopt;
  return DqMatch{*p, in, *q};
}

std::optional<QMatch> MatchSoleQ(const GraphRewriter& rw, ValueId v) {
  auto user = rw.SoleUser(v);
  if (!user) return std::nullopt;
  const Node& n = rw.node(*user);
  if (n.op != OpType::kQuantizeLinear || n.inputs[0] != v) return std::nullopt;
  auto q = ReadQdqParams(rw.graph(), n);
  if (!q || q->per_axis() || q->scales.size() != 1) return std::nullopt;
  const DType t = rw.value(n.outputs[0]).dtype;
  if (!IsActivationCode(t, *q)) return std::nullopt;
  return QMatch{*user, n.outputs[0], *q, t};
}

std::vector<uint8_t> CodeBytes(const std::vector<int64_t>& codes, DType t) {
  const size_t width = DTypeSize(t);
  std::vector<uint8_t> out(codes.size() * width);
  for (size_t i = 0; i < codes.size(); ++i) {
    // Little-endian two's complement: the low `width` bytes of the code.
    const auto v = static_cast<uint64_t>(codes[i]);
    for (size_t b = 0; b < width; ++b) out[i * width + b] = static_cast<uint8_t>(v >> (8 * b));
  }
  return out;
}

bool IsActivationCode(DType t, const QuantParams& q) {
  if (t == DType::kU8 || t == DType::kI8) return true;
  if (t != DType::kI16) return false;
  for (int64_t z : q.zero_points) {
    if (z != 0) return false;
  }
  return true;
}

std::optional<DqMatch> ActivationDq(const GraphRewriter& rw, ValueId v) {
  auto d = MatchDq(rw, v);
  if (!d || d->params.per_axis() || !IsActivationCode(rw.value(d->int_value).dtype, d->params)) {
    return std::nullopt;
  }
  return d;
}

bool SameParams(const QuantParams& a, const QuantParams& b) {
  return a.scales == b.scales && a.zero_points == b.zero_points && a.axis == b.axis;
}

namespace {

// Scale (f32) and zero-point (dtype t) constants of `q`: scalars per tensor, 1-D per axis.
std::pair<ValueId, ValueId> ParamConstants(GraphRewriter& rw, const std::string& base,
                                           const QuantParams& q, DType t) {
  const Shape shape = q.per_axis() ? Shape{static_cast<int64_t>(q.scales.size())} : Shape{};
  const ValueId s = AddF32Constant(rw, base + ".scale", shape, q.scales);
  std::vector<int64_t> zp = q.zero_points;
  zp.resize(q.scales.size(), 0);
  const ValueId z =
      rw.AddConstant(base + ".zero_point", t, shape, ConstantBytes::FromVector(CodeBytes(zp, t)));
  return {s, z};
}

Attributes AxisAttr(const QuantParams& q) {
  Attributes a;
  if (q.per_axis()) a.Set("axis", q.axis);
  return a;
}

}  // namespace

ValueId InsertQdqPair(GraphRewriter& rw, ValueId v, const QuantParams& params, DType t,
                      NodeId anchor) {
  const std::string base = rw.value(v).name;
  const Shape shape = rw.value(v).shape;
  auto [scale, zp] = ParamConstants(rw, base, params, t);
  Value qv;
  qv.name = rw.graph().UniqueValueName(base + ".q");
  qv.dtype = t;
  qv.shape = shape;
  qv.shape_known = true;
  qv.quant = params;
  const ValueId q_out = rw.AddValue(std::move(qv));
  Value dv;
  dv.name = rw.graph().UniqueValueName(base + ".dq");
  dv.dtype = DType::kF32;
  dv.shape = shape;
  dv.shape_known = true;
  const ValueId dq_out = rw.AddValue(std::move(dv));
  std::vector<std::string> sources;
  if (auto p = rw.Producer(v)) sources = rw.node(*p).sources;
  // Every reader of v reads the DQ instead; then the Q reads v.
  rw.ReplaceAllUsesWith(v, dq_out);
  Node q;
  q.name = base + ".quantize";
  q.op = OpType::kQuantizeLinear;
  q.opset = 17;
  q.inputs = {v, scale, zp};
  q.outputs = {q_out};
  q.attrs = AxisAttr(params);
  q.sources = sources;
  rw.InsertNode(std::move(q), anchor);
  Node d;
  d.name = base + ".dequantize";
  d.op = OpType::kDequantizeLinear;
  d.opset = 17;
  d.inputs = {q_out, scale, zp};
  d.outputs = {dq_out};
  d.attrs = AxisAttr(params);
  d.sources = sources;
  rw.InsertNode(std::move(d), anchor);
  return q_out;
}

ValueId InsertDequantize(GraphRewriter& rw, ValueId int_value, const QuantParams& params,
                         ValueId float_out, NodeId anchor,
                         const std::vector<std::string>& sources) {
  const std::string base = rw.value(int_value).name;
  auto [scale, zp] = ParamConstants(rw, base, params, rw.value(int_value).dtype);
  if (float_out == kNoValue) {
    Value dv;
    dv.name = rw.graph().UniqueValueName(base + ".dq");
    dv.dtype = DType::kF32;
    dv.shape = rw.value(int_value).shape;
    dv.shape_known = true;
    float_out = rw.AddValue(std::move(dv));
  }
  Node d;
  d.name = base + ".dequantize";
  d.op = OpType::kDequantizeLinear;
  d.opset = 17;
  d.inputs = {int_value, scale, zp};
  d.outputs = {float_out};
  d.attrs = AxisAttr(params);
  d.sources = sources;
  rw.InsertNode(std::move(d), anchor);
  return float_out;
}

Expected<ValueId> AddRequantConstant(GraphRewriter& rw, const std::string& base,
                                     const std::vector<double>& m) {
  std::vector<int32_t> raw;
  raw.reserve(m.size() * 2);
  for (double x : m) {
    KILN_ASSIGN_OR_RETURN(Requant r, QuantizeMultiplier(x));
    raw.push_back(r.multiplier);
    raw.push_back(r.shift);
  }
  return rw.AddConstant(base + ".requant", DType::kI32, {static_cast<int64_t>(m.size()), 2},
                        ConstantBytes::Copy(raw.data(), raw.size() * sizeof(int32_t)));
}

ValueId AddQuantizedConstant(GraphRewriter& rw, const std::string& base, DType t, Shape shape,
                             const void* data, const QuantParams& params) {
  const size_t bytes = static_cast<size_t>(NumElements(shape)) * DTypeSize(t);
  const ValueId id = rw.AddConstant(base, t, std::move(shape), ConstantBytes::Copy(data, bytes));
  rw.value(id).quant = params;
  return id;
}

std::string DTypeAttr(DType t) { return std::string(DTypeName(t)); }

}  // namespace kiln::quant
