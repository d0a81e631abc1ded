// Shape inference of Pad, Resize and Upsample: output extents come from constant inputs.
#include <algorithm>

#include "ir/ops/nn_infer.h"
#include "ir/ops/resize_params.h"

namespace kiln::nn_infer {
namespace {

const Value* OptionalInput(const InferenceContext& ctx, size_t i) {
  return ctx.has_input(i) ? &ctx.input(i) : nullptr;
}

}  // namespace

Status Pad(InferenceContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const std::string mode = ctx.attrs().GetString("mode", "constant");
  if (mode != "constant" && mode != "reflect" && mode != "edge") {
    return mode == "wrap"
               ? Unsupported("Pad mode 'wrap' (opset 19) is not supported")
               : InvalidArgument("Pad mode '" + mode + "' is not one of constant, reflect, edge");
  }
  if (ctx.has_input(3)) return Unsupported("Pad axes input (opset 18) is not supported");
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> pads, ConstantValueInts(&ctx.input(1), "pads"));
  const size_t rank = x.size();
  if (pads.size() != 2 * rank) {
    return InvalidArgument("pads has " + std::to_string(pads.size()) + " entries, expected " +
                           std::to_string(2 * rank) + " for a rank-" + std::to_string(rank) +
                           " input");
  }
  if (ctx.has_input(2)) {
    KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 2, "constant_value"));
    if (ctx.input(2).num_elements() != 1) {
      return InvalidArgument("constant_value must hold one element, got shape " +
                             ShapeToString(ctx.input_shape(2)));
    }
  }
  // |pads| <= 2^40 (ir/shape.h limits) keeps x + begin + end inside int64.
  KILN_RETURN_IF_ERROR(CheckRange(pads, -kMaxDim, kMaxDim, "pads"));
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t b = pads[i];
    const int64_t e = pads[rank + i];
    out[i] = x[i] + b + e;
    if (out[i] < 0) {
      return InvalidArgument("pads " + ShapeToString(pads) + " crop axis " + std::to_string(i) +
                             " below zero");
    }
    const int64_t grow = std::max<int64_t>(std::max<int64_t>(b, e), 0);
    if (grow > 0 && mode == "edge" && x[i] == 0) {
      return InvalidArgument("edge padding of an empty axis " + std::to_string(i));
    }
    // Reflection mirrors without repeating the border, so it can add at most dim-1 per side.
    if (grow > 0 && mode == "reflect" && grow > x[i] - 1) {
      return InvalidArgument("reflect pads " + ShapeToString(pads) + " exceed axis " +
                             std::to_string(i) + " extent " + std::to_string(x[i]) + " - 1");
    }
  }
  ctx.SetOutput(0, ctx.input_dtype(0), out);
  return Status::Ok();
}

Status Resize(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(auto roi, ConstantValueFloats(OptionalInput(ctx, 1), "roi"));
  KILN_ASSIGN_OR_RETURN(auto scales, ConstantValueFloats(OptionalInput(ctx, 2), "scales"));
  KILN_ASSIGN_OR_RETURN(auto sizes, ConstantValueInts(OptionalInput(ctx, 3), "sizes"));
  KILN_ASSIGN_OR_RETURN(ResizeParams p,
                        ResolveResize(ctx.attrs(), ctx.input_shape(0), roi, scales, sizes));
  if (p.mode == ResizeMode::kLinear) KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
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
