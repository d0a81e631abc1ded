// Inference of the broadcasting elementwise ops (arithmetic, Pow, Mod, PRelu, compare, logic,
// variadic Max/Min/Sum/Mean, Where).
#include <string>

#include "ir/ops/elementwise_infer.h"

namespace kiln {
namespace {

std::string Name(DType t) { return std::string(DTypeName(t)); }

// Every present input must have the dtype of input 0.
Status CheckSameDType(const InferenceContext& ctx, size_t first) {
  const DType t = ctx.input_dtype(first);
  for (size_t i = first + 1; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i) && ctx.input_dtype(i) != t) {
      return InvalidArgument("input " + std::to_string(i) + " ('" + ctx.input(i).name +
                             "') has dtype " + Name(ctx.input_dtype(i)) + ", expected " + Name(t));
    }
  }
  return Status::Ok();
}

// Broadcast shape of inputs [first, num_inputs).
Expected<Shape> BroadcastInputs(const InferenceContext& ctx, size_t first) {
  Shape out = ctx.input_shape(first);
  for (size_t i = first + 1; i < ctx.num_inputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(out, BroadcastShapes(out, ctx.input_shape(i)));
  }
  return out;
}

bool IsNumeric(DType t) { return IsFloat(t) || IsInteger(t); }

}  // namespace

Status InferArithmetic(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDType(ctx, 0));
  const DType t = ctx.input_dtype(0);
  if (!IsNumeric(t)) return InvalidArgument("inputs must be numeric, got " + Name(t));
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastInputs(ctx, 0));
  ctx.SetOutput(0, t, std::move(out));
  return Status::Ok();
}

Status InferPow(InferenceContext& ctx) {
  // Pow-15 lets base and exponent differ in dtype; the result has the base's dtype.
  const DType base = ctx.input_dtype(0);
  const DType exponent = ctx.input_dtype(1);
  if (!IsNumeric(base)) return InvalidArgument("base must be numeric, got " + Name(base));
  if (!IsNumeric(exponent)) {
    return InvalidArgument("exponent must be numeric, got " + Name(exponent));
  }
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastInputs(ctx, 0));
  ctx.SetOutput(0, base, std::move(out));
  return Status::Ok();
}

Status InferMod(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(InferArithmetic(ctx));
  const int64_t fmod = ctx.attrs().GetInt("fmod", 0);
  if (fmod != 0 && fmod != 1) {
    return InvalidArgument("fmod must be 0 or 1, got " + std::to_string(fmod));
  }
  // Mod-10/13: a float remainder is C's fmod only; the sign-of-divisor form of floats came
  // later (opset 28), so fmod=0 on floats is a malformed model at the opsets Kiln imports.
  if (IsFloat(ctx.input_dtype(0)) && fmod == 0) {
    return InvalidArgument("fmod must be 1 for float inputs");
  }
  return Status::Ok();
}

Status InferPRelu(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDType(ctx, 0));
  const DType t = ctx.input_dtype(0);
  if (!IsNumeric(t)) return InvalidArgument("inputs must be numeric, got " + Name(t));
  // The slope broadcasts to X (unidirectionally): the output keeps X's shape.
  const Shape& x = ctx.input_shape(0);
  auto both = BroadcastShapes(x, ctx.input_shape(1));
  if (!both.ok() || *both != x) {
    return InvalidArgument("slope shape " + ShapeToString(ctx.input_shape(1)) +
                           " does not broadcast to input shape " + ShapeToString(x));
  }
  ctx.SetOutput(0, t, x);
  return Status::Ok();
}

Status InferCompare(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDType(ctx, 0));
  const DType t = ctx.input_dtype(0);
  const bool bool_ok = ctx.node().op == OpType::kEqual;
  if (!IsNumeric(t) && !(bool_ok && t == DType::kBool)) {
    return InvalidArgument("inputs must be numeric, got " + Name(t));
  }
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastInputs(ctx, 0));
  ctx.SetOutput(0, DType::kBool, std::move(out));
  return Status::Ok();
}

Status InferLogical(InferenceContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.input_dtype(i) != DType::kBool) {
      return InvalidArgument("input " + std::to_string(i) + " must be bool, got " +
                             Name(ctx.input_dtype(i)));
    }
  }
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastInputs(ctx, 0));
  ctx.SetOutput(0, DType::kBool, std::move(out));
  return Status::Ok();
}

Status InferVariadic(InferenceContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return InvalidArgument("input " + std::to_string(i) + " is omitted");
  }
  KILN_RETURN_IF_ERROR(CheckSameDType(ctx, 0));
  const DType t = ctx.input_dtype(0);
  if (!IsNumeric(t)) return InvalidArgument("inputs must be numeric, got " + Name(t));
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastInputs(ctx, 0));
  ctx.SetOutput(0, t, std::move(out));
  return Status::Ok();
}

Status InferWhere(InferenceContext& ctx) {
  if (ctx.input_dtype(0) != DType::kBool) {
    return InvalidArgument("condition must be bool, got " + Name(ctx.input_dtype(0)));
  }
  KILN_RETURN_IF_ERROR(CheckSameDType(ctx, 1));
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastInputs(ctx, 0));
  ctx.SetOutput(0, ctx.input_dtype(1), std::move(out));
  return Status::Ok();
}

}  // namespace kiln
