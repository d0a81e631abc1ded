// Shape inference of Gemm, MatMul and the normalisations (BatchNormalization, InstanceNorm, LRN,
// LayerNormalization).
#include "ir/ops/nn_infer.h"

namespace kiln::nn_infer {
namespace {

// Per-channel parameter input `i` must be [C].
Status RequireChannelVector(const InferenceContext& ctx, size_t i, const char* what,
                            int64_t channels) {
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, i, what));
  const Shape& s = ctx.input_shape(i);
  if (s.size() != 1 || s[0] != channels) {
    return InvalidArgument(std::string(what) + " " + ShapeToString(s) + " must be [" +
                           std::to_string(channels) + "] (one per channel of X)");
  }
  return Status::Ok();
}

// Can `c` broadcast unidirectionally to `target`?
bool BroadcastsTo(const Shape& c, const Shape& target) {
  if (c.size() > target.size()) return false;
  const size_t off = target.size() - c.size();
  for (size_t i = 0; i < c.size(); ++i) {
    if (c[i] != 1 && c[i] != target[off + i]) return false;
  }
  return true;
}

}  // namespace

Status Gemm(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input A"));
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 1, "input B"));
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 2, "input C"));
  const Shape& a = ctx.input_shape(0);
  if (a.size() != 2) return InvalidArgument("A " + ShapeToString(a) + " must be 2-D");
  return GemmShape(ctx, a);
}

Status GemmShape(InferenceContext& ctx, const Shape& a) {
  const Shape& b = ctx.input_shape(1);
  if (b.size() != 2) return InvalidArgument("B " + ShapeToString(b) + " must be 2-D");
  const bool ta = ctx.attrs().GetInt("transA", 0) != 0;
  const bool tb = ctx.attrs().GetInt("transB", 0) != 0;
  const int64_t m = ta ? a[1] : a[0];
  const int64_t ka = ta ? a[0] : a[1];
  const int64_t kb = tb ? b[1] : b[0];
  const int64_t n = tb ? b[0] : b[1];
  if (ka != kb) {
    return InvalidArgument("inner dimensions differ: A " + ShapeToString(a) +
                           (ta ? " (transposed)" : "") + " vs B " + ShapeToString(b) +
                           (tb ? " (transposed)" : ""));
  }
  const Shape out = {m, n};
  if (ctx.has_input(2) && !BroadcastsTo(ctx.input_shape(2), out)) {
    return InvalidArgument("C " + ShapeToString(ctx.input_shape(2)) +
                           " does not broadcast to the output " + ShapeToString(out));
  }
  ctx.SetOutput(0, ctx.input_dtype(0), out);
  return Status::Ok();
}

Status MatMul(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input A"));
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 1, "input B"));
  Shape a = ctx.input_shape(0);
  Shape b = ctx.input_shape(1);
  if (a.empty() || b.empty()) return InvalidArgument("MatMul operands must have rank >= 1");
  const bool a_vec = a.size() == 1;
  const bool b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);  // numpy: a 1-D A is a row vector, B a column vector
  if (b_vec) b.push_back(1);
  if (a.back() != b[b.size() - 2]) {
    return InvalidArgument("inner dimensions differ: A " + ShapeToString(ctx.input_shape(0)) +
                           " vs B " + ShapeToString(ctx.input_shape(1)));
  }
  KILN_ASSIGN_OR_RETURN(
      Shape batch, BroadcastShapes(Shape(a.begin(), a.end() - 2), Shape(b.begin(), b.end() - 2)));
  Shape out = batch;
  if (!a_vec) out.push_back(a[a.size() - 2]);
  if (!b_vec) out.push_back(b.back());
  ctx.SetOutput(0, ctx.input_dtype(0), out);
  return Status::Ok();
}

Status BatchNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 2) {
    return InvalidArgument("input X " + ShapeToString(x) + " must be [N, C, ...]");
  }
  const char* names[] = {"", "scale", "bias B", "input_mean", "input_var"};
  for (size_t i = 1; i < 5; ++i) {
    KILN_RETURN_IF_ERROR(RequireChannelVector(ctx, i, names[i], x[1]));
  }
  const bool training = ctx.attrs().GetInt("training_mode", 0) != 0;
  if (!training && (ctx.has_output(1) || ctx.has_output(2))) {
    return InvalidArgument("running_mean/running_var outputs need training_mode=1");
  }
  ctx.SetOutput(0, ctx.input_dtype(0), x);
  if (ctx.has_output(1)) ctx.SetOutput(1, ctx.input_dtype(3), {x[1]});
  if (ctx.has_output(2)) ctx.SetOutput(2, ctx.input_dtype(4), {x[1]});
  return Status::Ok();
}

Status InstanceNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 3) {
    return InvalidArgument("input X " + ShapeToString(x) + " must be [N, C, spatial...]");
  }
  KILN_RETURN_IF_ERROR(RequireChannelVector(ctx, 1, "scale", x[1]));
  KILN_RETURN_IF_ERROR(RequireChannelVector(ctx, 2, "bias B", x[1]));
  ctx.SetOutput(0, ctx.input_dtype(0), x);
  return Status::Ok();
}

Status Lrn(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  const Shape& x = ctx.input_shape(0);
  if (x.size() < 2) return InvalidArgument("input X " + ShapeToString(x) + " must be [N, C, ...]");
  if (!ctx.attrs().Has("size")) return InvalidArgument("size attribute is required");
  const int64_t size = ctx.attrs().GetInt("size", 0);
  if (size <= 0) return InvalidArgument("size must be positive, got " + std::to_string(size));
  ctx.SetOutput(0, ctx.input_dtype(0), x);
  return Status::Ok();
}

Status LayerNormalization(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(RequireFloatInput(ctx, 0, "input X"));
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 1, "Scale"));
  KILN_RETURN_IF_ERROR(RequireSameDType(ctx, 2, "B"));
  const Shape& x = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(x.size());
  int64_t axis = ctx.attrs().GetInt("axis", -1);
  if (!NormalizeAxis(axis, rank)) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", -1)) +
                           " is out of range for rank " + std::to_string(rank));
  }
  const int64_t stash = ctx.attrs().GetInt("stash_type", 1);
  if (stash != 1) {
    return Unsupported("stash_type " + std::to_string(stash) + " (Kiln computes in float: 1)");
  }
  // Scale and B broadcast to the normalised shape X.shape[axis:].
  const Shape normalised(x.begin() + axis, x.end());
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_input(i) && !BroadcastsTo(ctx.input_shape(i), normalised)) {
      return InvalidArgument(
          std::string(i == 1 ? "Scale " : "B ") + ShapeToString(ctx.input_shape(i)) +
          " does not broadcast to the normalised shape " + ShapeToString(normalised));
    }
  }
  ctx.SetOutput(0, ctx.input_dtype(0), x);
  Shape stats(x.begin(), x.begin() + axis);
  stats.resize(x.size(), 1);
  for (size_t i = 1; i < 3; ++i) {
    if (ctx.has_output(i)) ctx.SetOutput(i, DType::kF32, stats);  // Mean, InvStdDev
  }
  return Status::Ok();
}

}  // namespace kiln::nn_infer
