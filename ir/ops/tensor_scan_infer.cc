// Inference for the tensor ops that keep their input's shape and dtype and read a runtime
// scalar: Trilu (k) and CumSum (axis). The scalar may stay a runtime input: its value does not
// shape the output, so the kernels check it when they read it.
#include <string>

#include "ir/ops/tensor_infer.h"

namespace kiln::tensor_infer {
namespace {

// Input `i`, when present, must be a one-element tensor of an integer dtype in `dtypes`.
Status CheckScalarInput(const InferenceContext& ctx, size_t i, const char* what,
                        std::initializer_list<DType> dtypes) {
  if (!ctx.has_input(i)) return Status::Ok();
  bool ok = false;
  for (DType t : dtypes) ok |= ctx.input_dtype(i) == t;
  if (!ok) {
    return InvalidArgument(std::string(what) + " has dtype " +
                           std::string(DTypeName(ctx.input_dtype(i))) + ", expected an integer");
  }
  const Shape& s = ctx.input_shape(i);
  if (s.size() > 1 || NumElements(s) != 1) {
    return InvalidArgument(std::string(what) + " must be a scalar, got shape " + ShapeToString(s));
  }
  return Status::Ok();
}

}  // namespace

Status InferTrilu(InferenceContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 2) return InvalidArgument("input must have rank >= 2, got " + ShapeToString(x));
  KILN_RETURN_IF_ERROR(CheckScalarInput(ctx, 1, "k", {DType::kI64}));
  const int64_t upper = ctx.attrs().GetInt("upper", 1);
  if (upper != 0 && upper != 1) {
    return InvalidArgument("upper must be 0 or 1, got " + std::to_string(upper));
  }
  ctx.SetOutput(0, ctx.input_dtype(0), x);
  return Status::Ok();
}

Status InferCumSum(InferenceContext& ctx) {
  // ONNX's CumSum types that Kiln has (no 8- or 16-bit integers: ONNX leaves them out).
  const DType t = ctx.input_dtype(0);
  if (t != DType::kF32 && t != DType::kF16 && t != DType::kI32 && t != DType::kI64) {
    return InvalidArgument("input must be f32, f16, i32 or i64, got " +
                           std::string(DTypeName(t)));
  }
  if (ctx.input_shape(0).empty()) return InvalidArgument("input must have rank >= 1");
  if (!ctx.has_input(1)) return InvalidArgument("the axis input is required");
  KILN_RETURN_IF_ERROR(CheckScalarInput(ctx, 1, "axis", {DType::kI32, DType::kI64}));
  for (const char* flag : {"exclusive", "reverse"}) {
    const int64_t v = ctx.attrs().GetInt(flag, 0);
    if (v != 0 && v != 1) {
      return InvalidArgument(std::string(flag) + " must be 0 or 1, got " + std::to_string(v));
    }
  }
  if (ctx.input_constant(1)) {  // catch a bad constant axis at compile time
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> axis, ctx.ConstantInts(1));
    int64_t a = axis[0];
    if (!NormalizeAxis(a, static_cast<int64_t>(ctx.input_shape(0).size()))) {
      return InvalidArgument("axis " + std::to_string(axis[0]) + " is out of range for rank " +
                             std::to_string(ctx.input_shape(0).size()));
    }
  }
  ctx.SetOutput(0, t, ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace kiln::tensor_infer
