// lower-qdq rewrites of the linear ops: FusedConv -> QConv, FusedGemm / 2-D MatMul -> QGemm.
// Weights come from DQ of integer constants (per tensor or per output channel), biases from DQ
// of int32 constants or float constants (requantized to s_x * s_w), the epilogue Relu/Clip
// becomes the output clamp, a residual its own requantization; with no Q after the op (its
// readers are float) the output is the exact int32 accumulator, dequantized per channel.
// An int16 input or int16 weights make an int64 accumulator: an int64 bias, and a Q after the
// op (no int32 accumulator output).
#include <cmath>
#include <cstring>
#include <limits>

#include "compiler/quantize/lower_ops.h"
#include "compiler/quantize/qdq_utils.h"
#include "compiler/rewrite_utils.h"
#include "ir/activation.h"
#include "quant/quant_math.h"

namespace kiln::quant {
namespace {

// A weight operand: DQ of an 8-bit constant, per tensor or per axis `axis`.
std::optional<DqMatch> WeightDq(const GraphRewriter& rw, ValueId v, int64_t axis) {
  auto d = MatchDq(rw, v);
  if (!d) return std::nullopt;
  const Value& w = rw.value(d->int_value);
  if (!IsActivationCode(w.dtype, d->params) || !w.is_constant() || w.layout != Layout::kPlain) {
    return std::nullopt;  // (int16 weights: zero points 0, as int16 activations)
  }
  if (d->params.per_axis() && d->params.axis != axis) return std::nullopt;
  return d;
}

// int16 activations or weights: the op accumulates in int64 (with an int64 bias).
bool AccumulatesInInt64(const GraphRewriter& rw, const DqMatch& x, const DqMatch& w) {
  return rw.value(x.int_value).dtype == DType::kI16 || rw.value(w.int_value).dtype == DType::kI16;
}

// The real values of a bias operand (DQ of a constant, or a float constant), broadcast to `n`.
std::optional<std::vector<double>> BiasValues(const GraphRewriter& rw, ValueId v, int64_t n) {
  std::vector<double> out(static_cast<size_t>(n), 0.0);
  if (v == kNoValue) return out;
  std::vector<double> raw;
  if (auto d = MatchDq(rw, v)) {
    const Value& b = rw.value(d->int_value);
    if (!b.is_constant()) return std::nullopt;
    for (int64_t i = 0; i < b.num_elements(); ++i) {
      int64_t code = 0;
      switch (b.dtype) {
        case DType::kI32:
          code = b.constant->as<int32_t>()[i];
          break;
        case DType::kU8:
          code = b.constant->as<uint8_t>()[i];
          break;
        case DType::kI8:
          code = b.constant->as<int8_t>()[i];
          break;
        default:
          return std::nullopt;
      }
      const size_t c = d->params.per_axis() ? static_cast<size_t>(i) : 0;
      raw.push_back(Dequantize(code, d->params.scales[c], d->params.zero_points[c]));
    }
  } else if (auto f = ConstantFloats(rw.value(v))) {
    raw.assign(f->begin(), f->end());
  } else {
    return std::nullopt;
  }
  if (raw.size() == 1) {
    std::fill(out.begin(), out.end(), raw[0]);
  } else if (static_cast<int64_t>(raw.size()) == n) {
    out = raw;
  } else {
    return std::nullopt;
  }
  return out;
}

// Weight codes minus zero points, as int32 (for the accumulator bound).
std::vector<int64_t> CentredAbsSums(const Value& w, const QuantParams& q, int64_t channels,
                                    bool channel_major, int64_t k) {
  std::vector<int64_t> sums(static_cast<size_t>(channels), 0);
  for (int64_t c = 0; c < channels; ++c) {
    const int64_t zp = q.zero_points[q.per_axis() ? static_cast<size_t>(c) : 0];
    for (int64_t i = 0; i < k; ++i) {
      const int64_t idx = channel_major ? c * k + i : i * channels + c;
      const int64_t code =
          w.dtype == DType::kU8 ? w.constant->as<uint8_t>()[idx] : w.constant->as<int8_t>()[idx];
      sums[static_cast<size_t>(c)] += std::llabs(code - zp);
    }
  }
  return sums;
}

// Whether every accumulator stays inside int32: sum |w| * 255 + |bias| + residual term.
bool AccumulatorFits(const std::vector<int64_t>& abs_sums, const std::vector<int64_t>& bias,
                     int64_t residual_bound) {
  for (size_t c = 0; c < abs_sums.size(); ++c) {
    const int64_t bound = abs_sums[c] * 255 + std::llabs(bias[c]) + residual_bound;
    if (bound >= std::numeric_limits<int32_t>::max()) return false;
  }
  return true;
}

// The bias as integers at scale s_x * s_w[c]: within +-1e9 (int32) or, for an int16 input,
// +-2^52 (int64; doubles hold such integers exactly).
std::optional<std::vector<int64_t>> QuantizeBiasTo(const std::vector<double>& b, double s_x,
                                                   const std::vector<double>& s_w, bool wide) {
  const double limit = wide ? 4.5e15 : 1e9;
  std::vector<int64_t> out(b.size());
  for (size_t c = 0; c < b.size(); ++c) {
    const double q = std::round(b[c] / (s_x * s_w[c]));
    if (!std::isfinite(q) || std::fabs(q) > limit) return std::nullopt;
    out[c] = static_cast<int64_t>(q);
  }
  return out;
}

ValueId AddI32Constant(GraphRewriter& rw, const std::string& base, const std::vector<int32_t>& v) {
  return rw.AddConstant(base, DType::kI32, {static_cast<int64_t>(v.size())},
                        ConstantBytes::Copy(v.data(), v.size() * sizeof(int32_t)));
}

// The bias constant: i32, or i64 for an int16 input.
ValueId AddBiasConstant(GraphRewriter& rw, const std::string& base, const std::vector<int64_t>& v,
                        bool wide) {
  if (wide) {
    return rw.AddConstant(base, DType::kI64, {static_cast<int64_t>(v.size())},
                          ConstantBytes::Copy(v.data(), v.size() * sizeof(int64_t)));
  }
  return AddI32Constant(rw, base, std::vector<int32_t>(v.begin(), v.end()));
}

std::vector<double> WeightScales(const QuantParams& q, int64_t channels) {
  std::vector<double> s(static_cast<size_t>(channels));
  for (int64_t c = 0; c < channels; ++c)
    s[static_cast<size_t>(c)] = q.scales[q.per_axis() ? static_cast<size_t>(c) : 0];
  return s;
}

// The accumulator value `acc` (i32, scale s_x * s_w[c] along `axis`) dequantized into the
// float value `y`, whose old producer `old` is erased.
Status DequantizeAccumulator(GraphRewriter& rw, NodeId old, ValueId acc, ValueId y,
                             const std::vector<double>& acc_scales, int64_t axis) {
  QuantParams q;
  bool uniform = true;
  for (double s : acc_scales) uniform &= s == acc_scales[0];
  for (double s : acc_scales) q.scales.push_back(static_cast<float>(s));
  if (uniform) q.scales.resize(1);
  q.zero_points.assign(q.scales.size(), 0);
  if (!uniform) q.axis = axis;
  rw.value(acc).quant = q;
  const ValueId dq = InsertDequantize(rw, acc, q, kNoValue, old, rw.node(old).sources);
  rw.ReplaceAllUsesWith(y, dq);
  return rw.EraseNode(old);
}

ValueId NewAccumulatorValue(GraphRewriter& rw, ValueId y) {
  Value v;
  v.name = rw.graph().UniqueValueName(rw.value(y).name + ".acc");
  v.dtype = DType::kI32;
  v.shape = rw.value(y).shape;
  v.shape_known = true;
  return rw.AddValue(std::move(v));
}

// Copies every attribute of `from` except the epilogue activation's.
Attributes WithoutActivation(const Attributes& from) {
  Attributes a = from;
  a.Erase(kActivationAttr);
  a.Erase(kActivationAlphaAttr);
  a.Erase(kActivationBetaAttr);
  return a;
}

}  // namespace

NodeId InsertReplacement(GraphRewriter& rw, Node node, NodeId old, ValueId out) {
  Node& o = rw.node(old);
  for (ValueId& v : o.outputs) {
    if (v == out) v = kNoValue;
  }
  node.outputs = {out};
  return rw.InsertNode(std::move(node), old);
}

Status EraseIfUnused(GraphRewriter& rw, NodeId n) {
  if (rw.IsErased(n)) return Status::Ok();
  for (ValueId out : rw.node(n).outputs) {
    if (out != kNoValue && rw.NumUses(out) > 0) return Status::Ok();
  }
  return rw.EraseNode(n);
}

Expected<bool> LowerConv(GraphRewriter& rw, NodeId id, PassContext& ctx) {
  const Node& f = rw.node(id);
  if (f.op != OpType::kFusedConv) return false;
  auto dx = ActivationDq(rw, f.inputs[0]);
  auto dw = WeightDq(rw, f.inputs[1], 0);
  if (!dx || !dw) return false;
  ActivationParams act;
  if (!ReadActivation(f.attrs, &act).ok()) return false;
  const bool has_residual = f.inputs.size() > 3 && f.inputs[3] != kNoValue;
  std::optional<DqMatch> dr;
  if (has_residual) {
    dr = ActivationDq(rw, f.inputs[3]);
    if (!dr) return false;
  }
  const ValueId y = f.outputs[0];
  const auto q = MatchSoleQ(rw, y);
  const bool wide = !q;
  const bool acc64 = AccumulatesInInt64(rw, *dx, *dw);
  if (wide &&
      (acc64 || has_residual || (act.kind != Activation::kNone && act.kind != Activation::kRelu))) {
    return false;
  }
  if (!q && rw.NumUses(y) == 0) return false;
  const Value& w = rw.value(dw->int_value);
  const int64_t m = w.shape[0];
  const int64_t k = w.num_elements() / m;
  const double s_x = dx->params.scales[0];
  const std::vector<double> s_w = WeightScales(dw->params, m);
  auto bias_real = BiasValues(rw, f.inputs.size() > 2 ? f.inputs[2] : kNoValue, m);
  if (!bias_real) return false;
  auto bias = QuantizeBiasTo(*bias_real, s_x, s_w, acc64);
  if (!bias) return false;
  std::vector<double> residual_m;
  int64_t residual_bound = 0;
  if (has_residual) {
    for (int64_t c = 0; c < m; ++c) {
      const double rm = dr->params.scales[0] / (s_x * s_w[static_cast<size_t>(c)]);
      residual_m.push_back(rm);
      residual_bound = std::max<int64_t>(residual_bound, static_cast<int64_t>(std::ceil(rm * 256)));
    }
  }
  if (!acc64 &&
      !AccumulatorFits(CentredAbsSums(w, dw->params, m, true, k), *bias, residual_bound)) {
    ctx.Count("kept-float-accumulator-range");
    return false;
  }
  Node qc;
  qc.name = f.name;
  qc.op = OpType::kQConv;
  qc.opset = f.opset;
  qc.sources = f.sources;
  qc.attrs = WithoutActivation(f.attrs);
  const std::string base = rw.value(y).name;
  rw.value(dx->int_value).quant = dx->params;
  rw.value(dw->int_value).quant = dw->params;
  const ValueId bias_v = AddBiasConstant(rw, base + ".bias", *bias, acc64);
  qc.inputs = {dx->int_value, dw->int_value, bias_v, kNoValue};
  if (wide) {
    qc.attrs.Set("out_dtype", DTypeAttr(DType::kI32));
    if (act.kind == Activation::kRelu) qc.attrs.Set("qmin", int64_t{0});
    const ValueId acc = NewAccumulatorValue(rw, y);
    std::vector<double> acc_scales;
    for (double s : s_w) acc_scales.push_back(s_x * s);
    InsertReplacement(rw, std::move(qc), id, acc);
    KILN_RETURN_IF_ERROR(DequantizeAccumulator(rw, id, acc, y, acc_scales, 1));
    ctx.Count("conv-i32");
    return true;
  }
  std::vector<double> mult;
  for (int64_t c = 0; c < m; ++c)
    mult.push_back(s_x * s_w[static_cast<size_t>(c)] / q->params.scales[0]);
  auto requant = AddRequantConstant(rw, base, mult);
  if (!requant.ok()) return false;
  qc.inputs.push_back(*requant);
  if (has_residual) {
    rw.value(dr->int_value).quant = dr->params;
    qc.inputs[3] = dr->int_value;
    auto rrq = AddRequantConstant(rw, base + ".residual", residual_m);
    if (!rrq.ok()) return false;
    qc.inputs.push_back(*rrq);
  }
  KILN_ASSIGN_OR_RETURN(QClamp clamp, ActivationClamp(act, q->params, q->dtype));
  qc.attrs.Set("out_dtype", DTypeAttr(q->dtype));
  qc.attrs.Set("qmin", clamp.qmin);
  qc.attrs.Set("qmax", clamp.qmax);
  rw.value(q->out).quant = q->params;
  InsertReplacement(rw, std::move(qc), q->node, q->out);
  KILN_RETURN_IF_ERROR(rw.EraseNode(q->node));
  KILN_RETURN_IF_ERROR(rw.EraseNode(id));
  ctx.Count(has_residual ? "conv-residual" : "conv");
  if (acc64) ctx.Count("conv-int64-accumulator");
  return true;
}

Expected<bool> LowerGemm(GraphRewriter& rw, NodeId id, PassContext& ctx) {
  const Node& f = rw.node(id);
  const bool matmul = f.op == OpType::kMatMul;
  if (f.op != OpType::kFusedGemm && !matmul) return false;
  if (f.attrs.GetInt("transA", 0) != 0) return false;
  const bool tb = f.attrs.GetInt("transB", 0) != 0;
  auto da = ActivationDq(rw, f.inputs[0]);
  auto db = WeightDq(rw, f.inputs[1], tb ? 0 : 1);
  if (!da || !db) return false;
  const Shape& a_shape = rw.value(f.inputs[0]).shape;
  if (matmul && a_shape.size() != 2) return false;
  const Value& b = rw.value(db->int_value);
  if (b.shape.size() != 2) return false;
  ActivationParams act;
  if (!ReadActivation(f.attrs, &act).ok()) return false;
  const float alpha = f.attrs.GetFloat("alpha", 1.f);
  const float beta = f.attrs.GetFloat("beta", 1.f);
  if (!(alpha > 0)) return false;
  const int64_t n = tb ? b.shape[0] : b.shape[1];
  const int64_t k = tb ? b.shape[1] : b.shape[0];
  const ValueId y = f.outputs[0];
  const auto q = MatchSoleQ(rw, y);
  const bool wide = !q;
  const bool acc64 = AccumulatesInInt64(rw, *da, *db);
  if (wide && (acc64 || (act.kind != Activation::kNone && act.kind != Activation::kRelu))) {
    return false;
  }
  if (!q && rw.NumUses(y) == 0) return false;
  const double s_a = da->params.scales[0] * static_cast<double>(alpha);
  const std::vector<double> s_b = WeightScales(db->params, n);
  auto c_real = BiasValues(rw, !matmul && f.inputs.size() > 2 ? f.inputs[2] : kNoValue, n);
  if (!c_real) return false;
  for (double& c : *c_real) c *= beta;
  auto bias = QuantizeBiasTo(*c_real, s_a, s_b, acc64);
  if (!bias) return false;
  if (!acc64 && !AccumulatorFits(CentredAbsSums(b, db->params, n, tb, k), *bias, 0)) {
    ctx.Count("kept-float-accumulator-range");
    return false;
  }
  Node qg;
  qg.name = f.name;
  qg.op = OpType::kQGemm;
  qg.opset = f.opset;
  qg.sources = f.sources;
  qg.attrs.Set("transB", int64_t{tb ? 1 : 0});
  qg.attrs.Set("a_flatten_axis", matmul ? int64_t{1} : f.attrs.GetInt("a_flatten_axis", 1));
  rw.value(da->int_value).quant = da->params;
  rw.value(db->int_value).quant = db->params;
  const std::string base = rw.value(y).name;
  qg.inputs = {da->int_value, db->int_value, AddBiasConstant(rw, base + ".bias", *bias, acc64)};
  if (wide) {
    qg.attrs.Set("out_dtype", DTypeAttr(DType::kI32));
    if (act.kind == Activation::kRelu) qg.attrs.Set("qmin", int64_t{0});
    const ValueId acc = NewAccumulatorValue(rw, y);
    std::vector<double> acc_scales;
    for (double s : s_b) acc_scales.push_back(s_a * s);
    InsertReplacement(rw, std::move(qg), id, acc);
    KILN_RETURN_IF_ERROR(DequantizeAccumulator(rw, id, acc, y, acc_scales, 1));
    ctx.Count("gemm-i32");
    return true;
  }
  std::vector<double> mult;
  for (int64_t j = 0; j < n; ++j)
    mult.push_back(s_a * s_b[static_cast<size_t>(j)] / q->params.scales[0]);
  auto requant = AddRequantConstant(rw, base, mult);
  if (!requant.ok()) return false;
  qg.inputs.push_back(*requant);
  KILN_ASSIGN_OR_RETURN(QClamp clamp, ActivationClamp(act, q->params, q->dtype));
  qg.attrs.Set("out_dtype", DTypeAttr(q->dtype));
  qg.attrs.Set("qmin", clamp.qmin);
  qg.attrs.Set("qmax", clamp.qmax);
  rw.value(q->out).quant = q->params;
  InsertReplacement(rw, std::move(qg), q->node, q->out);
  KILN_RETURN_IF_ERROR(rw.EraseNode(q->node));
  KILN_RETURN_IF_ERROR(rw.EraseNode(id));
  ctx.Count("gemm");
  return true;
}

// Cast(to int32) of DQ(i32 accumulator, scale 1, zero point 0) is the accumulator itself: the
// form ConvInteger / MatMulInteger import as (parsers/onnx/onnx_quantized_import.h). Exact,
// where the float round trip would round accumulators beyond 2^24.
Expected<bool> LowerCastOfAccumulator(GraphRewriter& rw, NodeId id, PassContext& ctx) {
  const Node& c = rw.node(id);
  if (c.op != OpType::kCast || c.inputs.empty() || c.outputs.empty()) return false;
  const ValueId y = c.outputs[0];
  if (rw.value(y).dtype != DType::kI32) return false;
  auto d = MatchDq(rw, c.inputs[0]);
  if (!d || rw.value(d->int_value).dtype != DType::kI32) return false;
  for (size_t i = 0; i < d->params.scales.size(); ++i) {
    if (d->params.scales[i] != 1.f || d->params.zero_points[i] != 0) return false;
  }
  rw.ReplaceAllUsesWith(y, d->int_value);
  KILN_RETURN_IF_ERROR(rw.EraseNode(id));
  ctx.Count("cast-i32");
  return true;
}

}  // namespace kiln::quant
