// Inference for the tensor ops that select, join or replicate elements: Concat, Slice, Split,
// Gather, Expand, Tile.
#include <string>

#include "ir/ops/slice_params.h"
#include "ir/ops/tensor_infer.h"

namespace kiln::tensor_infer {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Normalises the node's `axis` attribute (default `def`) against `rank`.
Expected<int64_t> AxisAttr(const InferenceContext& ctx, int64_t def, int64_t rank) {
  int64_t axis = ctx.attrs().GetInt("axis", def);
  if (!NormalizeAxis(axis, rank)) {
    return InvalidArgument("axis " + Str(ctx.attrs().GetInt("axis", def)) +
                           " is out of range for rank " + Str(rank));
  }
  return axis;
}

}  // namespace

Status InferConcat(InferenceContext& ctx) {
  if (!ctx.attrs().Has("axis")) return InvalidArgument("attribute 'axis' is required");
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return InvalidArgument("input " + Str(i) + " is missing");
  }
  const Shape& first = ctx.input_shape(0);
  KILN_ASSIGN_OR_RETURN(const int64_t axis, AxisAttr(ctx, 0, static_cast<int64_t>(first.size())));
  Shape out = first;
  out[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input_shape(i);
    if (ctx.input_dtype(i) != ctx.input_dtype(0)) {
      return InvalidArgument("input " + Str(i) + " has dtype " +
                             std::string(DTypeName(ctx.input_dtype(i))) + ", input 0 has " +
                             std::string(DTypeName(ctx.input_dtype(0))));
    }
    bool match = s.size() == first.size();
    for (size_t d = 0; match && d < s.size(); ++d) {
      match = d == static_cast<size_t>(axis) || s[d] == first[d];
    }
    if (!match) {
      return InvalidArgument("input " + Str(i) + " shape " + ShapeToString(s) +
                             " does not match input 0 shape " + ShapeToString(first) +
                             " outside axis " + Str(axis));
    }
    KILN_ASSIGN_OR_RETURN(out[static_cast<size_t>(axis)],
                          CheckedAdd(out[static_cast<size_t>(axis)], s[static_cast<size_t>(axis)],
                                     "concatenated extent"));
  }
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status InferSlice(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> starts, ctx.ConstantInts(1));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> ends, ctx.ConstantInts(2));
  std::vector<int64_t> axes, steps;
  if (ctx.has_input(3)) {
    KILN_ASSIGN_OR_RETURN(axes, ctx.ConstantInts(3));
  }
  if (ctx.has_input(4)) {
    KILN_ASSIGN_OR_RETURN(steps, ctx.ConstantInts(4));
  }
  // An explicitly given but empty axes/steps list only makes sense with empty starts.
  if ((ctx.has_input(3) && axes.size() != starts.size()) ||
      (ctx.has_input(4) && steps.size() != starts.size())) {
    return InvalidArgument("starts, ends, axes and steps must have the same length");
  }
  KILN_ASSIGN_OR_RETURN(SliceParams p, ResolveSlice(ctx.input_shape(0), starts, ends, axes, steps));
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(p.out_shape));
  return Status::Ok();
}

Status InferSplit(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  KILN_ASSIGN_OR_RETURN(const int64_t axis, AxisAttr(ctx, 0, static_cast<int64_t>(in.size())));
  const int64_t dim = in[static_cast<size_t>(axis)];
  const int64_t n = static_cast<int64_t>(ctx.num_outputs());
  std::vector<int64_t> split;
  if (ctx.has_input(1)) {
    KILN_ASSIGN_OR_RETURN(split, ctx.ConstantInts(1));
  }
  KILN_ASSIGN_OR_RETURN(
      std::vector<int64_t> sizes,
      ResolveSplitSizes(ctx.attrs(), ctx.has_input(1) ? &split : nullptr, dim, n));
  for (size_t i = 0; i < sizes.size(); ++i) {
    Shape out = in;
    out[static_cast<size_t>(axis)] = sizes[i];
    ctx.SetOutput(i, ctx.input_dtype(0), std::move(out));
  }
  return Status::Ok();
}

Status InferGather(InferenceContext& ctx) {
  const Shape& data = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  if (data.empty()) return InvalidArgument("data must have rank >= 1");
  const DType it = ctx.input_dtype(1);
  if (it != DType::kI32 && it != DType::kI64) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(it)));
  }
  KILN_ASSIGN_OR_RETURN(const int64_t axis, AxisAttr(ctx, 0, static_cast<int64_t>(data.size())));
  const int64_t dim = data[static_cast<size_t>(axis)];
  if (ctx.input_constant(1)) {  // catch bad constant indices at compile time
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> idx, ctx.ConstantInts(1));
    for (int64_t v : idx) {
      if (v < -dim || v >= dim) {
        return InvalidArgument("index " + Str(v) + " is out of range for axis " + Str(axis) +
                               " of size " + Str(dim));
      }
    }
  }
  Shape out(data.begin(), data.begin() + axis);
  out.insert(out.end(), indices.begin(), indices.end());
  out.insert(out.end(), data.begin() + axis + 1, data.end());
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status InferExpand(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ctx.ConstantInts(1));
  if (ctx.input_shape(1).size() != 1) {
    return InvalidArgument("shape input must be 1-D, got " + ShapeToString(ctx.input_shape(1)));
  }
  for (int64_t d : shape) {
    if (d < 0) return InvalidArgument("shape has a negative dim " + Str(d));
  }
  KILN_ASSIGN_OR_RETURN(Shape out, BroadcastShapes(ctx.input_shape(0), shape));
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status InferTile(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> repeats, ctx.ConstantInts(1));
  if (repeats.size() != in.size()) {
    return InvalidArgument("repeats has " + Str(static_cast<int64_t>(repeats.size())) +
                           " entries but the input has rank " + Str(in.size()));
  }
  Shape out(in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    if (repeats[i] < 0) return InvalidArgument("repeats has a negative entry " + Str(repeats[i]));
    KILN_ASSIGN_OR_RETURN(out[i], CheckedMul(in[i], repeats[i], "Tile extent"));
  }
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

}  // namespace kiln::tensor_infer
