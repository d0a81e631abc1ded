// Inference of the reductions: Reduce{Mean,Max,Min,Sum,Prod,L2} and ArgMax/ArgMin.
#include <string>

#include "ir/ops/elementwise_infer.h"
#include "ir/ops/reduce_axes.h"

namespace kiln {

Status InferReduce(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  // ReduceMax/ReduceMin-20 also take bool (any / all).
  const bool bool_ok = ctx.node().op == OpType::kReduceMax || ctx.node().op == OpType::kReduceMin;
  if (!IsFloat(t) && !IsInteger(t) && !(bool_ok && t == DType::kBool)) {
    return InvalidArgument("input must be numeric, got " + std::string(DTypeName(t)));
  }
  const Shape& in = ctx.input_shape(0);
  std::vector<int64_t> axes_input;
  const bool has_axes_input = ctx.has_input(1);
  if (has_axes_input) {
    KILN_ASSIGN_OR_RETURN(axes_input, ctx.ConstantInts(1));
    if (ctx.input_shape(1).size() > 1) {
      return InvalidArgument("axes must be a 1-D tensor, got shape " +
                             ShapeToString(ctx.input_shape(1)));
    }
  }
  KILN_ASSIGN_OR_RETURN(std::vector<bool> reduced,
                        ResolveReduceAxes(ctx.attrs(), has_axes_input ? &axes_input : nullptr,
                                          static_cast<int64_t>(in.size())));
  const bool keepdims = ctx.attrs().GetInt("keepdims", 1) != 0;
  ctx.SetOutput(0, t, ReducedShape(in, reduced, keepdims));
  return Status::Ok();
}

Status InferArgReduce(InferenceContext& ctx) {
  const DType t = ctx.input_dtype(0);
  if (!IsFloat(t) && !IsInteger(t)) {
    return InvalidArgument("input must be numeric, got " + std::string(DTypeName(t)));
  }
  const Shape& in = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.attrs().GetInt("axis", 0);
  if (!NormalizeAxis(axis, rank)) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", 0)) +
                           " is out of range for rank " + std::to_string(rank));
  }
  if (in[static_cast<size_t>(axis)] == 0) {
    return InvalidArgument("cannot take the arg-extremum over an empty axis");
  }
  std::vector<bool> reduced(in.size(), false);
  reduced[static_cast<size_t>(axis)] = true;
  const bool keepdims = ctx.attrs().GetInt("keepdims", 1) != 0;
  ctx.SetOutput(0, DType::kI64, ReducedShape(in, reduced, keepdims));
  return Status::Ok();
}

}  // namespace kiln
