// Inference for the tensor ops that produce metadata or constants (Shape, Size, Range,
// Constant, ConstantOfShape) and the pass-throughs (Identity, Dropout).
#include <cmath>
#include <string>

#include "ir/ops/slice_params.h"
#include "ir/ops/tensor_infer.h"

namespace kiln::tensor_infer {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Reads scalar input i as a double, whatever its numeric dtype.
Expected<double> ScalarInput(const InferenceContext& ctx, size_t i) {
  if (ctx.input(i).num_elements() != 1) {
    return InvalidArgument("input " + Str(static_cast<int64_t>(i)) + " must be a scalar, got " +
                           ShapeToString(ctx.input_shape(i)));
  }
  if (IsFloat(ctx.input_dtype(i))) {
    KILN_ASSIGN_OR_RETURN(std::vector<float> v, ctx.ConstantFloats(i));
    return static_cast<double>(v[0]);
  }
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> v, ctx.ConstantInts(i));
  return static_cast<double>(v[0]);
}

}  // namespace

Status InferShape(InferenceContext& ctx) {
  int64_t first = 0, last = 0;
  ResolveShapeRange(ctx.attrs(), static_cast<int64_t>(ctx.input_shape(0).size()), &first, &last);
  ctx.SetOutput(0, DType::kI64, {last - first});
  return Status::Ok();
}

Status InferSize(InferenceContext& ctx) {
  ctx.SetOutput(0, DType::kI64, {});
  return Status::Ok();
}

Status InferRange(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  if (t != DType::kF32 && t != DType::kI32 && t != DType::kI64) {
    return Unsupported("Range supports f32, i32 and i64, got " + std::string(DTypeName(t)));
  }
  if (ctx.input_dtype(1) != t || ctx.input_dtype(2) != t) {
    return InvalidArgument("start, limit and delta must share one dtype");
  }
  int64_t count = 0;
  if (t == DType::kF32) {
    KILN_ASSIGN_OR_RETURN(const double start, ScalarInput(ctx, 0));
    KILN_ASSIGN_OR_RETURN(const double limit, ScalarInput(ctx, 1));
    KILN_ASSIGN_OR_RETURN(const double delta, ScalarInput(ctx, 2));
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
      return InvalidArgument("start, limit and delta must be finite and delta non-zero");
    }
    // ONNX: max(ceil((limit - start) / delta), 0); like onnx's own inference, the difference
    // is taken in the input's precision and the division in double.
    const double n = std::ceil(
        static_cast<double>(static_cast<float>(limit) - static_cast<float>(start)) / delta);
    if (n > 1e9) return InvalidArgument("Range would produce " + std::to_string(n) + " values");
    count = n > 0 ? static_cast<int64_t>(n) : 0;
  } else {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> s, ctx.ConstantInts(0));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> l, ctx.ConstantInts(1));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> d, ctx.ConstantInts(2));
    if (s.size() != 1 || l.size() != 1 || d.size() != 1) {
      return InvalidArgument("start, limit and delta must be scalars");
    }
    if (d[0] == 0) return InvalidArgument("delta must be non-zero");
    // limit - start could overflow int64 for extreme values; such a range could never be
    // allocated, so reject it before doing the exact integer ceiling division.
    if (std::fabs(static_cast<double>(l[0]) - static_cast<double>(s[0])) > 0x1p62) {
      return InvalidArgument("Range from " + Str(s[0]) + " to " + Str(l[0]) + " is too wide");
    }
    const int64_t span = l[0] - s[0];
    int64_t n = span / d[0];
    if (n * d[0] != span && ((span > 0) == (d[0] > 0))) ++n;  // round toward +inf
    if (n > (int64_t{1} << 40)) return InvalidArgument("Range would produce too many values");
    count = n > 0 ? n : 0;
  }
  ctx.SetOutput(0, t, {count});
  return Status::Ok();
}

Status InferConstant(InferenceContext& ctx) {
  const Attributes& a = ctx.attrs();
  int given = 0;
  for (const char* name : {"value", "value_float", "value_floats", "value_int", "value_ints",
                           "sparse_value", "value_string", "value_strings"}) {
    given += a.Has(name) ? 1 : 0;
  }
  if (given != 1) {
    return InvalidArgument("exactly one value attribute must be set, got " + Str(given));
  }
  if (const TensorAttr* t = a.GetTensor("value")) {
    if (DTypeSize(t->dtype) == 0) return InvalidArgument("'value' tensor has no dtype");
    const size_t need = static_cast<size_t>(NumElements(t->shape)) * DTypeSize(t->dtype);
    if (t->bytes.size() != need) {
      return InvalidArgument("'value' tensor holds " + Str(static_cast<int64_t>(t->bytes.size())) +
                             " bytes, its shape needs " + Str(static_cast<int64_t>(need)));
    }
    ctx.SetOutput(0, t->dtype, t->shape);
  } else if (a.Has("value_float")) {
    ctx.SetOutput(0, DType::kF32, {});
  } else if (a.Has("value_floats")) {
    ctx.SetOutput(0, DType::kF32, {static_cast<int64_t>(a.GetFloats("value_floats").size())});
  } else if (a.Has("value_int")) {
    ctx.SetOutput(0, DType::kI64, {});
  } else if (a.Has("value_ints")) {
    ctx.SetOutput(0, DType::kI64, {static_cast<int64_t>(a.GetInts("value_ints").size())});
  } else {
    return Unsupported("Constant with sparse or string values is not supported");
  }
  return Status::Ok();
}

Status InferConstantOfShape(InferenceContext& ctx) {
  if (ctx.input_shape(0).size() != 1) {
    return InvalidArgument("input must be a 1-D shape, got " + ShapeToString(ctx.input_shape(0)));
  }
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstantInts(0));
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("shape has a negative dim " + Str(d));
  }
  DType dtype = DType::kF32;  // ONNX default: a float 0
  if (ctx.attrs().Has("value")) {
    const TensorAttr* t = ctx.attrs().GetTensor("value");
    if (!t) return InvalidArgument("attribute 'value' must be a tensor");
    if (NumElements(t->shape) != 1 || DTypeSize(t->dtype) == 0 ||
        t->bytes.size() != DTypeSize(t->dtype)) {
      return InvalidArgument("attribute 'value' must hold exactly one element");
    }
    dtype = t->dtype;
  }
  ctx.SetOutput(0, dtype, std::move(shape));
  return Status::Ok();
}

Status InferIdentity(InferenceContext& ctx) {
  ctx.SetOutput(0, ctx.input_dtype(0), ctx.input_shape(0));
  return Status::Ok();
}

Status InferDropout(InferenceContext& ctx) {
  // Random masks are out of scope; reject a constant training_mode=true with a non-zero ratio
  // here, non-constant ones in the kernel.
  if (ctx.has_input(2) && ctx.input_constant(2)) {
    if (ctx.input_dtype(2) != DType::kBool || ctx.input(2).num_elements() != 1) {
      return InvalidArgument("training_mode must be a bool scalar");
    }
    const bool training = ctx.input_constant(2)->data()[0] != 0;
    float ratio = 0.5f;  // ONNX default
    if (ctx.has_input(1)) {
      if (!ctx.input_constant(1)) {
        return Unsupported(
            "training_mode=true needs a constant ratio (random dropout masks are "
            "not supported)");
      }
      KILN_ASSIGN_OR_RETURN(std::vector<float> r, ctx.ConstantFloats(1));
      if (r.size() != 1) return InvalidArgument("ratio must be a scalar");
      ratio = r[0];
    }
    if (training && ratio != 0.0f) {
      return Unsupported("Dropout with training_mode=true and ratio " + std::to_string(ratio) +
                         " needs a random mask, which Kiln does not support");
    }
  }
  ctx.SetOutput(0, ctx.input_dtype(0), ctx.input_shape(0));
  if (ctx.num_outputs() > 1) ctx.SetOutput(1, DType::kBool, ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace kiln::tensor_infer
