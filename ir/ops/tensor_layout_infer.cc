// Inference for the tensor ops that re-view or permute one input: Reshape, Flatten, Squeeze,
// Unsqueeze, Transpose, DepthToSpace, SpaceToDepth.
#include <algorithm>
#include <string>

#include "ir/ops/tensor_infer.h"

namespace kiln::tensor_infer {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

// Normalises `axes` against `rank`, rejecting out-of-range and repeated entries.
Expected<std::vector<int64_t>> NormalizeAxes(std::vector<int64_t> axes, int64_t rank,
                                             const char* what) {
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t& a : axes) {
    const int64_t original = a;
    if (!NormalizeAxis(a, rank)) {
      return InvalidArgument(std::string(what) + " axis " + Str(original) +
                             " is out of range for rank " + Str(rank));
    }
    if (seen[static_cast<size_t>(a)]) {
      return InvalidArgument(std::string(what) + " axis " + Str(original) + " is repeated");
    }
    seen[static_cast<size_t>(a)] = true;
  }
  return axes;
}

Expected<int64_t> BlockSize(const InferenceContext& ctx) {
  if (!ctx.attrs().Has("blocksize")) return InvalidArgument("attribute 'blocksize' is required");
  const int64_t b = ctx.attrs().GetInt("blocksize", 0);
  // blocksize^2 must fit int64 as well: 2^31 keeps it there.
  if (b <= 0 || b > (int64_t{1} << 31)) {
    return InvalidArgument("blocksize must lie in [1, 2^31], got " + Str(b));
  }
  if (ctx.input_shape(0).size() != 4) {
    return InvalidArgument("input must be 4-D [N,C,H,W], got " + ShapeToString(ctx.input_shape(0)));
  }
  return b;
}

}  // namespace

Status InferReshape(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> target, ctx.ConstantInts(1));
  if (ctx.input_shape(1).size() != 1) {
    return InvalidArgument("shape input must be 1-D, got " + ShapeToString(ctx.input_shape(1)));
  }
  const bool allowzero = ctx.attrs().GetInt("allowzero", 0) != 0;
  Shape out(target.size());
  int infer_at = -1;
  int64_t known = 1;
  bool has_zero = false;
  for (size_t i = 0; i < target.size(); ++i) {
    const int64_t d = target[i];
    if (d == -1) {
      if (infer_at >= 0) return InvalidArgument("shape has more than one -1");
      infer_at = static_cast<int>(i);
      continue;
    }
    if (d < -1) return InvalidArgument("shape has invalid dim " + Str(d));
    if (d == 0 && !allowzero) {
      // 0 copies the input's dim at the same index.
      if (i >= in.size()) {
        return InvalidArgument("shape dim " + Str(static_cast<int64_t>(i)) +
                               " is 0 (copy) but the input has rank " + Str(in.size()));
      }
      out[i] = in[i];
    } else {
      out[i] = d;
    }
    has_zero |= out[i] == 0;
    if (__builtin_mul_overflow(known, out[i], &known)) {
      return InvalidArgument("shape " + ShapeToString(out) + " has too many elements");
    }
  }
  const int64_t total = NumElements(in);
  if (infer_at >= 0) {
    if (allowzero && has_zero) {
      return InvalidArgument("shape has both 0 and -1 while allowzero=1");
    }
    if (known == 0 || total % known != 0) {
      return InvalidArgument("cannot infer the -1 dim: " + Str(total) +
                             " elements do not divide by " + Str(known));
    }
    out[static_cast<size_t>(infer_at)] = total / known;
  } else if (known != total) {
    return InvalidArgument("cannot reshape " + ShapeToString(in) + " (" + Str(total) +
                           " elements) to " + ShapeToString(out));
  }
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status InferFlatten(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = ctx.attrs().GetInt("axis", 1);
  if (axis < 0) axis += rank;
  if (axis < 0 || axis > rank) {  // axis == rank is valid: [N, 1]
    return InvalidArgument("axis " + Str(ctx.attrs().GetInt("axis", 1)) +
                           " is out of range for rank " + Str(rank));
  }
  int64_t outer = 1, inner = 1;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t& side = i < axis ? outer : inner;
    KILN_ASSIGN_OR_RETURN(side, CheckedMul(side, in[static_cast<size_t>(i)], "Flatten extent"));
  }
  ctx.SetOutput(0, ctx.input_dtype(0), {outer, inner});
  return Status::Ok();
}

Status InferSqueeze(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<bool> drop(in.size(), false);
  std::vector<int64_t> axes;
  if (ctx.has_input(1)) {
    KILN_ASSIGN_OR_RETURN(axes, ctx.ConstantInts(1));
  }
  // An absent or empty axes list squeezes every size-1 dim (as onnxruntime does).
  if (!axes.empty()) {
    KILN_ASSIGN_OR_RETURN(axes, NormalizeAxes(std::move(axes), rank, "squeeze"));
    for (int64_t a : axes) {
      if (in[static_cast<size_t>(a)] != 1) {
        return InvalidArgument("cannot squeeze axis " + Str(a) + " of size " +
                               Str(in[static_cast<size_t>(a)]) + " in " + ShapeToString(in));
      }
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    for (size_t i = 0; i < in.size(); ++i) drop[i] = in[i] == 1;
  }
  Shape out;
  for (size_t i = 0; i < in.size(); ++i) {
    if (!drop[i]) out.push_back(in[i]);
  }
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status InferUnsqueeze(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ctx.ConstantInts(1));
  // Axes index the output, whose rank counts the inserted dims.
  const int64_t out_rank = static_cast<int64_t>(in.size() + axes.size());
  KILN_ASSIGN_OR_RETURN(axes, NormalizeAxes(std::move(axes), out_rank, "unsqueeze"));
  std::vector<bool> inserted(static_cast<size_t>(out_rank), false);
  for (int64_t a : axes) inserted[static_cast<size_t>(a)] = true;
  Shape out(static_cast<size_t>(out_rank));
  size_t next = 0;
  for (size_t i = 0; i < out.size(); ++i) out[i] = inserted[i] ? 1 : in[next++];
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status InferTranspose(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  const int64_t rank = static_cast<int64_t>(in.size());
  std::vector<int64_t> perm = ctx.attrs().GetInts("perm");
  if (!ctx.attrs().Has("perm")) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank) {
    return InvalidArgument("perm has " + Str(static_cast<int64_t>(perm.size())) +
                           " entries but the input has rank " + Str(rank));
  }
  std::vector<bool> seen(in.size(), false);
  Shape out(in.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    const int64_t p = perm[i];
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) {
      return InvalidArgument("perm is not a permutation of 0.." + Str(rank - 1));
    }
    seen[static_cast<size_t>(p)] = true;
    out[i] = in[static_cast<size_t>(p)];
  }
  ctx.SetOutput(0, ctx.input_dtype(0), std::move(out));
  return Status::Ok();
}

Status InferDepthToSpace(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const int64_t b, BlockSize(ctx));
  const std::string mode = ctx.attrs().GetString("mode", "DCR");
  if (mode != "DCR" && mode != "CRD") {
    return InvalidArgument("mode must be DCR or CRD, got '" + mode + "'");
  }
  const Shape& in = ctx.input_shape(0);
  if (in[1] % (b * b) != 0) {
    return InvalidArgument("channels " + Str(in[1]) +
                           " do not divide by blocksize^2 = " + Str(b * b));
  }
  KILN_ASSIGN_OR_RETURN(const int64_t h, CheckedMul(in[2], b, "DepthToSpace height"));
  KILN_ASSIGN_OR_RETURN(const int64_t w, CheckedMul(in[3], b, "DepthToSpace width"));
  ctx.SetOutput(0, ctx.input_dtype(0), {in[0], in[1] / (b * b), h, w});
  return Status::Ok();
}

Status InferSpaceToDepth(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const int64_t b, BlockSize(ctx));
  const Shape& in = ctx.input_shape(0);
  if (in[2] % b != 0 || in[3] % b != 0) {
    return InvalidArgument("height " + Str(in[2]) + " and width " + Str(in[3]) +
                           " must divide by blocksize " + Str(b));
  }
  KILN_ASSIGN_OR_RETURN(const int64_t c, CheckedMul(in[1], b * b, "SpaceToDepth channels"));
  ctx.SetOutput(0, ctx.input_dtype(0), {in[0], c, in[2] / b, in[3] / b});
  return Status::Ok();
}

}  // namespace kiln::tensor_infer
