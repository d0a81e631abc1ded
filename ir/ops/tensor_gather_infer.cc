// Inference for the element-indexed gathers: GatherND (batch_dims) and GatherElements (axis).
// Constant indices are bounds-checked here, so a bad model fails at compile time; the kernels
// check runtime indices again.
#include <algorithm>
#include <string>

#include "ir/ops/tensor_infer.h"

namespace kiln::tensor_infer {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status CheckIndexDType(const InferenceContext& ctx, size_t i) {
  const DType t = ctx.input_dtype(i);
  if (t != DType::kI32 && t != DType::kI64) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(t)));
  }
  return Status::Ok();
}

}  // namespace

Status InferGatherND(InferenceContext& ctx) {
  const Shape& data = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  KILN_RETURN_IF_ERROR(CheckIndexDType(ctx, 1));
  const int64_t r = static_cast<int64_t>(data.size());
  const int64_t q = static_cast<int64_t>(indices.size());
  const int64_t b = ctx.attrs().GetInt("batch_dims", 0);
  if (r < 1 || q < 1) {
    return InvalidArgument("data and indices must have rank >= 1, got " + ShapeToString(data) +
                           " and " + ShapeToString(indices));
  }
  if (b < 0 || b >= std::min(r, q)) {
    return InvalidArgument("batch_dims " + Str(b) + " must be in [0, " + Str(std::min(r, q) - 1) +
                           "] for data rank " + Str(r) + " and indices rank " + Str(q));
  }
  for (int64_t d = 0; d < b; ++d) {
    if (data[static_cast<size_t>(d)] != indices[static_cast<size_t>(d)]) {
      return InvalidArgument("batch dim " + Str(d) + " differs: data " + ShapeToString(data) +
                             ", indices " + ShapeToString(indices));
    }
  }
  const int64_t k = indices.back();
  if (k < 1 || k > r - b) {
    return InvalidArgument("the last indices dim (" + Str(k) + ") must be in [1, " + Str(r - b) +
                           "] for data " + ShapeToString(data) + " and batch_dims " + Str(b));
  }
  if (ctx.input_constant(1)) {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> idx, ctx.ConstantInts(1));
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t dim = data[static_cast<size_t>(b + static_cast<int64_t>(i) % k)];
      if (idx[i] < -dim || idx[i] >= dim) {
        return InvalidArgument("index " + Str(idx[i]) + " is out of range for data dim " +
                               Str(b + static_cast<int64_t>(i) % k) + " of size " + Str(dim));
      }
    }
  }
  Shape out(indices.begin(), indices.end() - 1);
  out.insert(out.end(), data.begin() + b + k, data.end());
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status CheckElementIndices(InferenceContext& ctx, const Shape& data, const Shape& indices) {
  const int64_t r = static_cast<int64_t>(data.size());
  if (r < 1) return InvalidArgument("data must have rank >= 1");
  if (static_cast<int64_t>(indices.size()) != r) {
    return InvalidArgument("indices " + ShapeToString(indices) + " must have the rank of data " +
                           ShapeToString(data));
  }
  int64_t axis = ctx.attrs().GetInt("axis", 0);
  if (!NormalizeAxis(axis, r)) {
    return InvalidArgument("axis " + Str(ctx.attrs().GetInt("axis", 0)) +
                           " is out of range for rank " + Str(r));
  }
  // Off the axis an index walks data's own positions, so it may not run past them.
  for (int64_t d = 0; d < r; ++d) {
    const size_t u = static_cast<size_t>(d);
    if (d != axis && indices[u] > data[u]) {
      return InvalidArgument("indices " + ShapeToString(indices) + " exceed data " +
                             ShapeToString(data) + " in dim " + Str(d));
    }
  }
  if (ctx.input_constant(1)) {
    const int64_t dim = data[static_cast<size_t>(axis)];
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> idx, ctx.ConstantInts(1));
    for (int64_t v : idx) {
      if (v < -dim || v >= dim) {
        return InvalidArgument("index " + Str(v) + " is out of range for axis " + Str(axis) +
                               " of size " + Str(dim));
      }
    }
  }
  return Status::Ok();
}

Status InferGatherElements(InferenceContext& ctx) {
  const Shape& data = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  KILN_RETURN_IF_ERROR(CheckIndexDType(ctx, 1));
  KILN_RETURN_IF_ERROR(CheckElementIndices(ctx, data, indices));
  ctx.SetOutput(0, ctx.input_dtype(0), indices);
  return Status::Ok();
}

}  // namespace kiln::tensor_infer
