// Schemas of the quantized integer ops (op values 160-199; docs/quantization.md defines them).
// Every 8-bit operand carries per-tensor QuantParams on its value (weights may be per output
// channel); requantization multipliers are int32 [n, 2] constants (multiplier, shift) the
// compiler computed; `out_dtype` ("u8", "i8", "i16" or "i32") is the output type and
// `qmin`/`qmax` its clamp (a folded Relu/Clip narrows it). Activations and QConv/QGemm weights
// may also be i16 (symmetric: zero point 0); QConv/QGemm reading one may take an i64 bias.
#include <limits>
#include <string>

#include "ir/ops/nn_infer.h"
#include "ir/ops/quantized_infer.h"
#include "ir/quant_code.h"

namespace kiln {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }
std::string Name(DType t) { return std::string(DTypeName(t)); }

bool IsCode(DType t) { return Is8BitCode(t) || t == DType::kI16; }

// Input `i` is a u8/i8/i16 activation quantized per tensor.
Status RequireActivation(const InferenceContext& ctx, size_t i, const char* what) {
  const Value& v = ctx.input(i);
  if (!IsCode(v.dtype)) {
    return InvalidArgument(std::string(what) + " must be u8, i8 or i16, got " + Name(v.dtype));
  }
  return CheckQuantParamsOf(v, /*allow_per_axis=*/false, what);
}

// Input `i`, when present, is an int32 [rows, 2] constant of (multiplier, shift) pairs with
// `rows` one of `allowed` (0 entries are ignored).
Status RequireRequant(const InferenceContext& ctx, size_t i, const char* what,
                      std::initializer_list<int64_t> allowed) {
  if (!ctx.has_input(i)) return InvalidArgument(std::string(what) + " is missing");
  const Value& v = ctx.input(i);
  if (v.dtype != DType::kI32 || v.shape.size() != 2 || v.shape[1] != 2) {
    return InvalidArgument(std::string(what) + " must be i32 [n, 2], got " + Name(v.dtype) +
                           ShapeToString(v.shape));
  }
  if (!v.is_constant()) return InvalidArgument(std::string(what) + " must be a constant");
  for (int64_t rows : allowed) {
    if (rows > 0 && v.shape[0] == rows) return Status::Ok();
  }
  return InvalidArgument(std::string(what) + " has " + Str(v.shape[0]) +
                         " rows, which fits neither per-tensor nor per-channel use");
}

// Weight input `i`: an 8-bit constant, per tensor or per axis `axis`.
Status RequireWeight(const InferenceContext& ctx, size_t i, int64_t axis, const char* what) {
  const Value& w = ctx.input(i);
  if (!IsCode(w.dtype)) {
    return InvalidArgument(std::string(what) + " must be i8, u8 or i16, got " + Name(w.dtype));
  }
  if (!w.is_constant()) return InvalidArgument(std::string(what) + " must be a constant");
  KILN_RETURN_IF_ERROR(CheckQuantParamsOf(w, /*allow_per_axis=*/true, what));
  if (w.quant.per_axis() && w.quant.axis != axis) {
    return InvalidArgument(std::string(what) + " is quantized along axis " + Str(w.quant.axis) +
                           "; only axis " + Str(axis) + " (output channels) is supported");
  }
  return Status::Ok();
}

// An optional int32 bias of `channels` elements at input `i` (or int64 when input 0 or the
// weight, input 1, is i16).
Status RequireBias(const InferenceContext& ctx, size_t i, int64_t channels) {
  if (!ctx.has_input(i)) return Status::Ok();
  const Value& b = ctx.input(i);
  const bool wide = ctx.input(0).dtype == DType::kI16 || ctx.input(1).dtype == DType::kI16;
  if ((b.dtype != DType::kI32 && !(wide && b.dtype == DType::kI64)) || b.shape != Shape{channels}) {
    return InvalidArgument(std::string("bias must be ") + (wide ? "i32 or i64 [" : "i32 [") +
                           Str(channels) + "], got " + Name(b.dtype) + ShapeToString(b.shape));
  }
  return Status::Ok();
}

Status QConv(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireActivation(ctx, 0, "input X"));
  KILN_RETURN_IF_ERROR(RequireWeight(ctx, 1, 0, "weight W"));
  KILN_RETURN_IF_ERROR(nn_infer::ConvShape(ctx, /*check_bias=*/false));
  KILN_ASSIGN_OR_RETURN(DType out, ReadOutputDType(ctx));
  const int64_t channels = ctx.input_shape(1)[0];
  KILN_RETURN_IF_ERROR(RequireBias(ctx, 2, channels));
  if (out != DType::kI32 || ctx.has_input(4)) {
    KILN_RETURN_IF_ERROR(RequireRequant(ctx, 4, "requant", {1, channels}));
  }
  const Shape y = ctx.outputs()[0].shape;
  if (ctx.has_input(3)) {
    if (out == DType::kI32) return InvalidArgument("an i32 output takes no residual");
    KILN_RETURN_IF_ERROR(RequireActivation(ctx, 3, "residual R"));
    if (ctx.input_shape(3) != y) {
      return InvalidArgument("residual R " + ShapeToString(ctx.input_shape(3)) +
                             " must have the output's shape " + ShapeToString(y));
    }
    KILN_RETURN_IF_ERROR(RequireRequant(ctx, 5, "residual requant", {1, channels}));
  } else if (ctx.has_input(5)) {
    return InvalidArgument("residual requant given without a residual");
  }
  KILN_RETURN_IF_ERROR(CheckClampAttrs(ctx, out));
  ctx.SetOutput(0, out, y);
  return Status::Ok();
}

Status QGemm(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireActivation(ctx, 0, "input A"));
  const bool tb = ctx.attrs().GetInt("transB", 0) != 0;
  KILN_RETURN_IF_ERROR(RequireWeight(ctx, 1, tb ? 0 : 1, "input B"));
  const Shape& a_full = ctx.input_shape(0);
  const Shape& b = ctx.input_shape(1);
  const int64_t axis = ctx.attrs().GetInt("a_flatten_axis", 1);
  if (a_full.size() < 2 || axis < 1 || axis >= static_cast<int64_t>(a_full.size())) {
    return InvalidArgument("A " + ShapeToString(a_full) +
                           " must have rank >= 2 and 1 <= a_flatten_axis < rank");
  }
  if (b.size() != 2) return InvalidArgument("B " + ShapeToString(b) + " must be 2-D");
  const int64_t m = NumElements(Shape(a_full.begin(), a_full.begin() + axis));
  const int64_t k = NumElements(Shape(a_full.begin() + axis, a_full.end()));
  const int64_t kb = tb ? b[1] : b[0];
  const int64_t n = tb ? b[0] : b[1];
  if (k != kb) {
    return InvalidArgument("inner dimensions differ: A " + ShapeToString(a_full) + " vs B " +
                           ShapeToString(b));
  }
  KILN_ASSIGN_OR_RETURN(DType out, ReadOutputDType(ctx));
  KILN_RETURN_IF_ERROR(RequireBias(ctx, 2, n));
  if (out != DType::kI32 || ctx.has_input(3)) {
    KILN_RETURN_IF_ERROR(RequireRequant(ctx, 3, "requant", {1, n}));
  }
  KILN_RETURN_IF_ERROR(CheckClampAttrs(ctx, out));
  ctx.SetOutput(0, out, {m, n});
  return Status::Ok();
}

// QAdd(A, B, requant[3, 2]) and QMul(A, B, requant[1, 2]): numpy broadcasting.
Status QBinary(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireActivation(ctx, 0, "input A"));
  KILN_RETURN_IF_ERROR(RequireActivation(ctx, 1, "input B"));
  const bool add = ctx.node().op == OpType::kQAdd;
  KILN_RETURN_IF_ERROR(RequireRequant(ctx, 2, "requant", {add ? 3 : 1}));
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastShapes(ctx.input_shape(0), ctx.input_shape(1)));
  KILN_ASSIGN_OR_RETURN(DType t, ReadOutputDType(ctx));
  if (!IsCode(t)) return InvalidArgument("out_dtype must be u8, i8 or i16");
  KILN_RETURN_IF_ERROR(CheckClampAttrs(ctx, t));
  ctx.SetOutput(0, t, std::move(out));
  return Status::Ok();
}

// QConcat(X0, ..., Xn-1, requant[n, 2]) along `axis`.
Status QConcat(InferenceContext& ctx) {
  const size_t n = ctx.num_inputs() - 1;
  if (!ctx.attrs().Has("axis")) return InvalidArgument("attribute 'axis' is required");
  for (size_t i = 0; i < n; ++i) {
    KILN_RETURN_IF_ERROR(RequireActivation(ctx, i, "input"));
  }
  KILN_RETURN_IF_ERROR(RequireRequant(ctx, n, "requant", {static_cast<int64_t>(n)}));
  const Shape& first = ctx.input_shape(0);
  int64_t axis = ctx.attrs().GetInt("axis", 0);
  if (!NormalizeAxis(axis, static_cast<int64_t>(first.size()))) {
    return InvalidArgument("axis out of range for rank " + Str(static_cast<int64_t>(first.size())));
  }
  Shape out = first;
  out[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < n; ++i) {
    const Shape& s = ctx.input_shape(i);
    bool match = s.size() == first.size();
    for (size_t d = 0; match && d < s.size(); ++d) {
      match = d == static_cast<size_t>(axis) || s[d] == first[d];
    }
    if (!match) {
      return InvalidArgument("input " + Str(static_cast<int64_t>(i)) + " shape " +
                             ShapeToString(s) + " does not match input 0 outside the axis");
    }
    out[static_cast<size_t>(axis)] += s[static_cast<size_t>(axis)];
  }
  KILN_ASSIGN_OR_RETURN(DType t, ReadOutputDType(ctx));
  if (!IsCode(t)) return InvalidArgument("out_dtype must be u8, i8 or i16");
  ctx.SetOutput(0, t, std::move(out));
  return Status::Ok();
}

// QAveragePool(X, requant[k, 2]): AveragePool's attributes; row c-1 rescales the sum of a
// window of c taps, k = the kernel's size.
Status QAveragePool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireActivation(ctx, 0, "input X"));
  if (ctx.attrs().Has("dilations")) {
    for (int64_t d : ctx.attrs().GetInts("dilations")) {
      if (d != 1) return InvalidArgument("dilated average pooling is not supported");
    }
  }
  KILN_RETURN_IF_ERROR(nn_infer::MaxPool(ctx));  // the pools' geometry, 8-bit input allowed
  KILN_ASSIGN_OR_RETURN(DType t, ReadOutputDType(ctx));
  if (!IsCode(t)) return InvalidArgument("out_dtype must be u8, i8 or i16");
  int64_t taps = 1;
  for (int64_t k : ctx.attrs().GetInts("kernel_shape")) taps *= k;
  KILN_RETURN_IF_ERROR(RequireRequant(ctx, 1, "requant", {taps}));
  KILN_RETURN_IF_ERROR(CheckClampAttrs(ctx, t));
  ctx.SetOutput(0, t, ctx.outputs()[0].shape);
  return Status::Ok();
}

// QGlobalAveragePool(X, requant[1, 2]?): the mean over the spatial axes; an i32 output is the
// plain sum of (x - zero point) and takes no requant.
Status QGlobalAveragePool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireActivation(ctx, 0, "input X"));
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 3) return InvalidArgument("input X must be [N, C, spatial...]");
  KILN_ASSIGN_OR_RETURN(DType t, ReadOutputDType(ctx));
  if (t != DType::kI32 || ctx.has_input(1)) {
    KILN_RETURN_IF_ERROR(RequireRequant(ctx, 1, "requant", {1}));
  }
  KILN_RETURN_IF_ERROR(CheckClampAttrs(ctx, t));
  Shape out = x;
  for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
  ctx.SetOutput(0, t, std::move(out));
  return Status::Ok();
}

// QLookup(X, table): y = table[x] over [256] codes (8-bit X) or interpolated between [513]
// knots (i16 X); the table's dtype is the output's.
Status QLookup(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireActivation(ctx, 0, "input X"));
  const Value& t = ctx.input(1);
  const int64_t entries = ctx.input(0).dtype == DType::kI16 ? 513 : 256;
  if (!IsCode(t.dtype) || t.shape != Shape{entries} || !t.is_constant()) {
    return InvalidArgument("table must be a u8, i8 or i16 [" + Str(entries) + "] constant, got " +
                           Name(t.dtype) + ShapeToString(t.shape));
  }
  ctx.SetOutput(0, t.dtype, ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace

Status CheckQuantParamsOf(const Value& v, bool allow_per_axis, const char* what) {
  const QuantParams& q = v.quant;
  if (q.scales.empty()) {
    return InvalidArgument(std::string(what) + " ('" + v.name + "') has no quantization parameters");
  }
  if (!q.zero_points.empty() && q.zero_points.size() != q.scales.size()) {
    return InvalidArgument(std::string(what) + " ('" + v.name +
                           "') has a different number of scales and zero points");
  }
  if (q.per_axis()) {
    if (!allow_per_axis) {
      return InvalidArgument(std::string(what) + " ('" + v.name +
                             "') must be quantized per tensor");
    }
    if (q.axis >= static_cast<int64_t>(v.shape.size()) ||
        static_cast<int64_t>(q.scales.size()) != v.shape[static_cast<size_t>(q.axis)]) {
      return InvalidArgument(std::string(what) + " ('" + v.name +
                             "') has per-axis parameters that do not match its shape");
    }
  } else if (q.scales.size() != 1) {
    return InvalidArgument(std::string(what) + " ('" + v.name +
                           "') has several scales but no axis");
  }
  // i16 codes are symmetric (zero point 0): the kernels centre them without widening.
  const int64_t lo = v.dtype == DType::kI16 ? 0 : QuantCodeMin(v.dtype);
  const int64_t hi = v.dtype == DType::kI16 ? 0 : QuantCodeMax(v.dtype);
  for (int64_t zp : q.zero_points) {
    if (zp < lo || zp > hi) {
      return InvalidArgument(std::string(what) + " ('" + v.name + "') has zero point " + Str(zp) +
                             (v.dtype == DType::kI16 ? " (i16 codes are symmetric: 0)"
                                                     : " outside its type's range"));
    }
  }
  for (float s : q.scales) {
    if (!(s > 0.f) || s == std::numeric_limits<float>::infinity()) {
      return InvalidArgument(std::string(what) + " ('" + v.name +
                             "') has a scale that is not positive and finite");
    }
  }
  return Status::Ok();
}

Expected<DType> ReadOutputDType(const InferenceContext& ctx) {
  const std::string name = ctx.attrs().GetString("out_dtype", "");
  if (name == "u8") return DType::kU8;
  if (name == "i8") return DType::kI8;
  if (name == "i16") return DType::kI16;
  if (name == "i32") return DType::kI32;
  return InvalidArgument("attribute out_dtype must be \"u8\", \"i8\", \"i16\" or \"i32\", got \"" +
                         name + "\"");
}

Status CheckClampAttrs(const InferenceContext& ctx, DType out) {
  const int64_t lo = QuantCodeMin(out), hi = QuantCodeMax(out);
  const int64_t qmin = ctx.attrs().GetInt("qmin", lo);
  const int64_t qmax = ctx.attrs().GetInt("qmax", hi);
  if (qmin < lo || qmax > hi || qmin > qmax) {
    return InvalidArgument("clamp [qmin, qmax] = [" + Str(qmin) + ", " + Str(qmax) +
                           "] must lie in the output type's range [" + Str(lo) + ", " + Str(hi) +
                           "]");
  }
  return Status::Ok();
}

void RegisterQuantizedSchemas(SchemaRegistry& r) {
  // {op, min_in, max_in, min_out, max_out, value_inputs, infer}
  r.Register({OpType::kQConv, 2, 6, 1, 1, {}, QConv});
  r.Register({OpType::kQGemm, 2, 4, 1, 1, {}, QGemm});
  r.Register({OpType::kQAdd, 3, 3, 1, 1, {}, QBinary});
  r.Register({OpType::kQMul, 3, 3, 1, 1, {}, QBinary});
  r.Register({OpType::kQConcat, 2, 1 << 16, 1, 1, {}, QConcat});
  r.Register({OpType::kQAveragePool, 2, 2, 1, 1, {}, QAveragePool});
  r.Register({OpType::kQGlobalAveragePool, 1, 2, 1, 1, {}, QGlobalAveragePool});
  r.Register({OpType::kQLookup, 2, 2, 1, 1, {}, QLookup});
}

}  // namespace kiln
