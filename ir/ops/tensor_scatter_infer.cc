// Inference for the scatters: ScatterND and ScatterElements (output = data's dtype and shape;
// updates' shape fixed by indices; reduction none/add/mul/max/min). Constant indices are
// bounds-checked here; the kernels check runtime ones again.
#include <string>

#include "ir/ops/tensor_infer.h"

namespace kiln::tensor_infer {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status CheckCommon(const InferenceContext& ctx) {
  const DType it = ctx.input_dtype(1);
  if (it != DType::kI32 && it != DType::kI64) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(it)));
  }
  if (ctx.input_dtype(2) != ctx.input_dtype(0)) {
    return InvalidArgument("updates have dtype " + std::string(DTypeName(ctx.input_dtype(2))) +
                           ", data " + std::string(DTypeName(ctx.input_dtype(0))));
  }
  const std::string r = ctx.attrs().GetString("reduction", "none");
  if (r != "none" && r != "add" && r != "mul" && r != "max" && r != "min") {
    return InvalidArgument("reduction '" + r + "' is not one of none, add, mul, max, min");
  }
  return Status::Ok();
}

}  // namespace

Status InferScatterND(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckCommon(ctx));
  const Shape& data = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  const int64_t r = static_cast<int64_t>(data.size());
  if (r < 1 || indices.empty()) {
    return InvalidArgument("data and indices must have rank >= 1, got " + ShapeToString(data) +
                           " and " + ShapeToString(indices));
  }
  const int64_t k = indices.back();
  if (k < 1 || k > r) {
    return InvalidArgument("the last indices dim (" + Str(k) + ") must be in [1, " + Str(r) +
                           "] for data " + ShapeToString(data));
  }
  Shape updates(indices.begin(), indices.end() - 1);
  updates.insert(updates.end(), data.begin() + k, data.end());
  if (ctx.input_shape(2) != updates) {
    return InvalidArgument("updates " + ShapeToString(ctx.input_shape(2)) + " must have shape " +
                           ShapeToString(updates) + " (indices[:-1] + data[k:])");
  }
  if (ctx.input_constant(1)) {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> idx, ctx.ConstantInts(1));
    for (size_t i = 0; i < idx.size(); ++i) {
      const int64_t d = static_cast<int64_t>(i) % k;
      const int64_t dim = data[static_cast<size_t>(d)];
      if (idx[i] < -dim || idx[i] >= dim) {
        return InvalidArgument("index " + Str(idx[i]) + " is out of range for data dim " + Str(d) +
                               " of size " + Str(dim));
      }
    }
  }
  ctx.SetOutput(0, ctx.input_dtype(0), data);
  return Status::Ok();
}

Status InferScatterElements(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckCommon(ctx));
  const Shape& data = ctx.input_shape(0);
  const Shape& indices = ctx.input_shape(1);
  if (ctx.input_shape(2) != indices) {
    return InvalidArgument("updates " + ShapeToString(ctx.input_shape(2)) +
                           " must have the shape of indices " + ShapeToString(indices));
  }
  KILN_RETURN_IF_ERROR(CheckElementIndices(ctx, data, indices));
  ctx.SetOutput(0, ctx.input_dtype(0), data);
  return Status::Ok();
}

}  // namespace kiln::tensor_infer
