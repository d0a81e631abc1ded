// Inference of the unary elementwise ops (activations, math, Clip, Not, IsNaN/IsInf,
// Softmax/LogSoftmax).
#include <string>

#include "ir/ops/elementwise_infer.h"

namespace kiln {
namespace {

std::string Name(DType t) { return std::string(DTypeName(t)); }

}  // namespace

Status InferUnaryFloat(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  if (!IsFloat(t)) return InvalidArgument("input must be f32 or f16, got " + Name(t));
  ctx.SetOutput(0, t, ctx.input_shape(0));
  return Status::Ok();
}

Status InferUnaryNumeric(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  if (!IsFloat(t) && !IsInteger(t)) {
    return InvalidArgument("input must be a numeric tensor, got " + Name(t));
  }
  ctx.SetOutput(0, t, ctx.input_shape(0));
  return Status::Ok();
}

Status InferClip(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  if (!IsFloat(t) && !IsInteger(t)) {
    return InvalidArgument("input must be a numeric tensor, got " + Name(t));
  }
  for (size_t i = 1; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) continue;
    const char* what = i == 1 ? "min" : "max";
    if (ctx.input_dtype(i) != t) {
      return InvalidArgument(std::string(what) + " has dtype " + Name(ctx.input_dtype(i)) +
                             " but the input is " + Name(t));
    }
    if (ctx.input(i).num_elements() != 1) {
      return InvalidArgument(std::string(what) + " must be a scalar, got shape " +
                             ShapeToString(ctx.input_shape(i)));
    }
  }
  ctx.SetOutput(0, t, ctx.input_shape(0));
  return Status::Ok();
}

Status InferNot(InferenceContext& ctx) {
  if (ctx.input_dtype(0) != DType::kBool) {
    return InvalidArgument("input must be bool, got " + Name(ctx.input_dtype(0)));
  }
  ctx.SetOutput(0, DType::kBool, ctx.input_shape(0));
  return Status::Ok();
}

Status InferFloatClass(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  if (!IsFloat(t)) return InvalidArgument("input must be f32 or f16, got " + Name(t));
  // IsInf's detect_* attributes are flags: any other value is a malformed model, not "true".
  for (const char* flag : {"detect_positive", "detect_negative"}) {
    const int64_t v = ctx.attrs().GetInt(flag, 1);
    if (v != 0 && v != 1) {
      return InvalidArgument(std::string(flag) + " must be 0 or 1, got " + std::to_string(v));
    }
  }
  ctx.SetOutput(0, DType::kBool, ctx.input_shape(0));
  return Status::Ok();
}

Status InferSoftmax(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  if (!IsFloat(t)) return InvalidArgument("input must be f32 or f16, got " + Name(t));
  const int64_t rank = static_cast<int64_t>(ctx.input_shape(0).size());
  int64_t axis = ctx.attrs().GetInt("axis", -1);
  if (!NormalizeAxis(axis, rank)) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", -1)) +
                           " is out of range for rank " + std::to_string(rank));
  }
  ctx.SetOutput(0, t, ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace kiln
