// Schemas of the compiler's fused ops.
//
// FusedConv(X, W, B?, R?) = act(Conv(X, W) + B + R): Conv's attributes and geometry; R, the
// residual, has the output's shape; W may be stored as f16 (--weights-f16) or in a packed
// layout (the value's layout tag; its logical shape stays [M, C/group, k...]).
// FusedGemm(A, B, C?) = act(alpha * A' * B' + beta * C): Gemm's attributes, plus
// `a_flatten_axis`: A of any rank is read as the 2-D [prod(A[:axis]), prod(A[axis:])] (what a
// Flatten/Reshape before the Gemm did, so that node can go).
// Reorder(X) = X: the same logical tensor, its bytes rearranged from X's layout into the
// output value's (the compiler's blocked-layout pass puts one where a region of NCHW8c kernels
// meets plain ones).
#include "ir/activation.h"
#include "ir/ops/nn_infer.h"

namespace kiln {
namespace {

Status CheckActivation(const InferenceContext& ctx) {
  ActivationParams p;
  return ReadActivation(ctx.attrs(), &p);
}

// W (input 1) is f16 or the dtype of input 0.
Status CheckWeightDType(const InferenceContext& ctx, const char* what) {
  const DType w = ctx.input_dtype(1);
  if (w == ctx.input_dtype(0) || w == DType::kF16) return Status::Ok();
  return InvalidArgument(std::string(what) + " has dtype " + std::string(DTypeName(w)) +
                         " but input 0 is " + std::string(DTypeName(ctx.input_dtype(0))));
}

Status FusedConv(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(nn_infer::RequireFloatInput(ctx, 0, "input X"));
  KILN_RETURN_IF_ERROR(CheckWeightDType(ctx, "weight W"));
  KILN_RETURN_IF_ERROR(CheckActivation(ctx));
  KILN_RETURN_IF_ERROR(nn_infer::ConvShape(ctx));
  if (ctx.has_input(3)) {
    KILN_RETURN_IF_ERROR(nn_infer::RequireSameDType(ctx, 3, "residual R"));
    const Shape& out = ctx.outputs()[0].shape;
    if (ctx.input_shape(3) != out) {
      return InvalidArgument("residual R " + ShapeToString(ctx.input_shape(3)) +
                             " must have the output's shape " + ShapeToString(out));
    }
  }
  return Status::Ok();
}

Status FusedGemm(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(nn_infer::RequireFloatInput(ctx, 0, "input A"));
  KILN_RETURN_IF_ERROR(CheckWeightDType(ctx, "input B"));
  KILN_RETURN_IF_ERROR(nn_infer::RequireSameDType(ctx, 2, "input C"));
  KILN_RETURN_IF_ERROR(CheckActivation(ctx));
  const Shape& a_full = ctx.input_shape(0);
  const int64_t axis = ctx.attrs().GetInt("a_flatten_axis", 1);
  if (a_full.size() < 2 || axis < 1 || axis >= static_cast<int64_t>(a_full.size())) {
    return InvalidArgument("A " + ShapeToString(a_full) + " must have rank >= 2 and 1 <= " +
                           "a_flatten_axis < rank, got a_flatten_axis " + std::to_string(axis));
  }
  const Shape a = {NumElements(Shape(a_full.begin(), a_full.begin() + axis)),
                   NumElements(Shape(a_full.begin() + axis, a_full.end()))};
  return nn_infer::GemmShape(ctx, a);
}

Status Reorder(InferenceContext& ctx) {
  ctx.SetOutput(0, ctx.input_dtype(0), ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace

void RegisterFusedSchemas(SchemaRegistry& r) {
  r.Register({OpType::kFusedConv, 2, 4, 1, 1, {}, FusedConv});
  r.Register({OpType::kFusedGemm, 2, 3, 1, 1, {}, FusedGemm});
  r.Register({OpType::kReorder, 1, 1, 1, 1, {}, Reorder});
}

}  // namespace kiln
