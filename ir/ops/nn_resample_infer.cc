// Shape inference of Pad, Resize and Upsample: output extents come from constant inputs.
#include "ir/ops/nn_infer.h"
#include "ir/ops/pad_params.h"
#include "ir/ops/resize_params.h"

namespace kiln::nn_infer {
namespace {

const Value* OptionalInput(const InferenceContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.input(i) : nullptr;
}

}  // namespace

Status Pad(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ConstantValueInts(&ctx.input(1), "pads"));
  std::vector<int64_t> axes;
  if (ctx.has_input(3)) {
    KILN_ASSIGN_OR_RETURN(axes, ConstantValueInts(&ctx.input(3), "axes"));
  }
  if (ctx.has_input(2)) {
    KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 2, "constant_value"));
    if (ctx.input(2).num_elements() != 1) {
      return InvalidArgument("constant_value must hold one element, got shape " +
                             ShapeToString(ctx.input_shape(2)));
    }
  }
  KILN_ASSIGN_OR_RETURN(PadParams p, ResolvePad(ctx.attrs(), ctx.input_shape(0), pads,
                                                ctx.has_input(3) ? &axes : nullptr));
  ctx.SetOutput(0, ctx.input_dtype(0), p.output);
  return Status::Ok();
}

Status Resize(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(auto roi, ConstantValueFloats(OptionalInput(ctx, 1), "roi"));
  KILN_ASSIGN_OR_RETURN(auto scales, ConstantValueFloats(OptionalInput(ctx, 2), "scales"));
  KILN_ASSIGN_OR_RETURN(auto sizes, ConstantValueInts(OptionalInput(ctx, 3), "sizes"));
  KILN_ASSIGN_OR_RETURN(ResizeParams p,
                        ResolveResize(ctx.attrs(), ctx.input_shape(0), roi, scales, sizes));
  if (p.mode != ResizeMode::kNearest) KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  ctx.SetOutput(0, ctx.input_dtype(0), p.output);
  return Status::Ok();
}

Status Upsample(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(auto scales, ConstantValueFloats(&ctx.input(1), "scales"));
  KILN_ASSIGN_OR_RETURN(ResizeParams p, ResolveUpsample(ctx.attrs(), ctx.input_shape(0), scales));
  if (p.mode == ResizeMode::kLinear) KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  ctx.SetOutput(0, ctx.input_dtype(0), p.output);
  return Status::Ok();
}

}  // namespace kiln::nn_infer
