// Shape inference of Conv, ConvTranspose and the pools.
#include "ir/ops/nn_infer.h"
#include "ir/ops/window_geometry.h"

namespace kiln::nn_infer {
namespace {

// Rank >= 3: [N, C, spatial...].
Status RequireSpatialInput(const InferenceContext& ctx) {
  if (ctx.input_shape(0).size() < 3) {
    return InvalidArgument("input X must be [N, C, spatial...] (rank >= 3), got " +
                           ShapeToString(ctx.input_shape(0)));
  }
  return Status::Ok();
}

std::vector<int64_t> Spatial(const Shape& s) { return {s.begin() + 2, s.end()}; }

// W's spatial extents, checked against an optional kernel_shape attribute.
Expected<std::vector<int64_t>> WeightKernel(const InferenceContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape& w = ctx.input_shape(1);
  if (w.size() != x.size()) {
    return InvalidArgument("weight W " + ShapeToString(w) + " must have the rank of X " +
                           ShapeToString(x));
  }
  std::vector<int64_t> kernel = Spatial(w);
  if (ctx.attrs().Has("kernel_shape") && ctx.attrs().GetInts("kernel_shape") != kernel) {
    return InvalidArgument("kernel_shape " + ShapeToString(ctx.attrs().GetInts("kernel_shape")) +
                           " does not match weight W " + ShapeToString(w));
  }
  return kernel;
}

Expected<int64_t> Group(const InferenceContext& ctx) {
  const int64_t group = ctx.attrs().GetInt("group", 1);
  if (group <= 0 || group > kMaxDim) {
    return InvalidArgument("group must lie in [1, 2^40], got " + std::to_string(group));
  }
  return group;
}

Status CheckBias(const InferenceContext& ctx, int64_t channels) {
  if (!ctx.has_input(2)) return Status::Ok();
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 2, "bias B"));
  const Shape& b = ctx.input_shape(2);
  if (b.size() != 1 || b[0] != channels) {
    return InvalidArgument("bias B " + ShapeToString(b) + " must be [" + std::to_string(channels) +
                           "] (one per output channel)");
  }
  return Status::Ok();
}

Status InferPool(InferenceContext& ctx, bool allow_ints) {
  KILN_RETURN_IF_ERROR(RequireSpatialInput(ctx));
  const DType t = ctx.input_dtype(0);
  if (!allow_ints) KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  if (allow_ints && !(t == DType::kF32 || t == DType::kF16 || t == DType::kI8 || t == DType::kU8 ||
                      t == DType::kI16)) {
    return InvalidArgument("MaxPool input must be f32, f16, i8, u8 or i16, got " +
                           std::string(DTypeName(t)));
  }
  const Shape& x = ctx.input_shape(0);
  KILN_ASSIGN_OR_RETURN(auto kernel, PoolKernelShape(ctx.attrs(), x.size() - 2));
  const bool ceil_mode = ctx.attrs().GetInt("ceil_mode", 0) != 0;
  KILN_ASSIGN_OR_RETURN(WindowGeometry g,
                        ResolveWindow(ctx.attrs(), Spatial(x), kernel, ceil_mode));
  Shape out = {x[0], x[1]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  ctx.SetOutput(0, t, out);
  if (ctx.has_output(1)) ctx.SetOutput(1, DType::kI64, out);  // MaxPool Indices
  return Status::Ok();
}

}  // namespace

Status Conv(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 1, "weight W"));
  return ConvShape(ctx);
}

Status ConvShape(InferenceContext& ctx, bool check_bias) {
  KILN_RETURN_IF_ERROR(RequireSpatialInput(ctx));
  KILN_ASSIGN_OR_RETURN(auto kernel, WeightKernel(ctx));
  KILN_ASSIGN_OR_RETURN(int64_t group, Group(ctx));
  const Shape& x = ctx.input_shape(0);
  const Shape& w = ctx.input_shape(1);
  if (x[1] % group != 0 || w[0] % group != 0) {
    return InvalidArgument("group " + std::to_string(group) + " must divide input channels (" +
                           std::to_string(x[1]) + ") and output channels (" + std::to_string(w[0]) +
                           ")");
  }
  KILN_ASSIGN_OR_RETURN(const int64_t in_channels, CheckedMul(w[1], group, "W[1] * group"));
  if (in_channels != x[1]) {
    return InvalidArgument("weight W " + ShapeToString(w) + " expects " +
                           std::to_string(in_channels) + " input channels (W[1] * group), X " +
                           ShapeToString(x) + " has " + std::to_string(x[1]));
  }
  if (check_bias) KILN_RETURN_IF_ERROR(CheckBias(ctx, w[0]));
  KILN_ASSIGN_OR_RETURN(WindowGeometry g, ResolveWindow(ctx.attrs(), Spatial(x), kernel, false));
  Shape out = {x[0], w[0]};
  out.insert(out.end(), g.output.begin(), g.output.end());
  ctx.SetOutput(0, ctx.input_dtype(0), out);
  return Status::Ok();
}

Status ConvTranspose(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireSpatialInput(ctx));
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 1, "weight W"));
  KILN_ASSIGN_OR_RETURN(auto kernel, WeightKernel(ctx));
  KILN_ASSIGN_OR_RETURN(int64_t group, Group(ctx));
  const Shape& x = ctx.input_shape(0);
  const Shape& w = ctx.input_shape(1);
  if (w[0] != x[1] || x[1] % group != 0) {
    return InvalidArgument("weight W " + ShapeToString(w) +
                           " must be [C, M/group, k...] with C = " + std::to_string(x[1]) +
                           " divisible by group " + std::to_string(group));
  }
  KILN_ASSIGN_OR_RETURN(const int64_t out_channels, CheckedMul(w[1], group, "W[1] * group"));
  KILN_RETURN_IF_ERROR(CheckBias(ctx, out_channels));
  KILN_ASSIGN_OR_RETURN(WindowGeometry g, ResolveTransposedWindow(ctx.attrs(), Spatial(x), kernel));
  Shape out = {x[0], out_channels};
  out.insert(out.end(), g.output.begin(), g.output.end());
  ctx.SetOutput(0, ctx.input_dtype(0), out);
  return Status::Ok();
}

Status MaxPool(InferenceContext& ctx) {
  const int64_t order = ctx.attrs().GetInt("storage_order", 0);
  if (order != 0 && order != 1) {
    return InvalidArgument("storage_order must be 0 (row major) or 1 (column major), got " +
                           std::to_string(order));
  }
  return InferPool(ctx, /*allow_ints=*/true);
}

Status AveragePool(InferenceContext& ctx) { return InferPool(ctx, /*allow_ints=*/false); }

Status GlobalPool(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireSpatialInput(ctx));
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  Shape out = ctx.input_shape(0);
  for (size_t i = 2; i < out.size(); ++i) out[i] = 1;
  ctx.SetOutput(0, ctx.input_dtype(0), out);
  return Status::Ok();
}

}  // namespace kiln::nn_infer
