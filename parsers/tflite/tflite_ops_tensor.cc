// CONCATENATION, RESHAPE/SQUEEZE/EXPAND_DIMS, TRANSPOSE, PAD/PADV2, MEAN and other reductions,
// RESIZE_BILINEAR/RESIZE_NEAREST_NEIGHBOR, STRIDED_SLICE, GATHER.
#include <cstring>
#include <limits>

#include "parsers/tflite/tflite_ops.h"

namespace kiln::tflite_import {
namespace {

Expected<int64_t> NormalizedAxis(const Importer& im, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument(im.Where() + ": axis " + std::to_string(axis) +
                           " out of range for rank " + std::to_string(rank));
  }
  return axis < 0 ? axis + rank : axis;
}

// A constant scalar tensor's real value (PADV2's pad value).
Expected<float> ConstantReal(Importer& im, int i) {
  if (!im.IsConstant(i))
    return Unsupported(im.Where() + ": input '" + im.name(i) + "' must be constant");
  KILN_ASSIGN_OR_RETURN(ValueId v, im.Stored(i, Form::kPlain));
  const Value& value = im.graph().value(v);
  if (value.num_elements() != 1)
    return InvalidArgument(im.Where() + ": input '" + im.name(i) + "' must be a scalar");
  const uint8_t* p = value.constant->data();
  float real = 0.f;
  switch (value.dtype) {
    case DType::kF32:
      std::memcpy(&real, p, 4);
      return real;
    case DType::kI8:
      real = static_cast<float>(static_cast<int8_t>(*p));
      break;
    case DType::kU8:
      real = static_cast<float>(*p);
      break;
    default:
      return Unsupported(im.Where() + ": pad value of type " + std::string(DTypeName(value.dtype)));
  }
  if (im.IsQuantized(i))
    real = (real - static_cast<float>(im.quant(i).zero_points[0])) * im.quant(i).scales[0];
  return real;
}

}  // namespace

Status ConvertConcatenation(Importer& im) {
  const auto* o = im.op().op->builtin_options_as_ConcatenationOptions();
  if (!o) return MissingOptions(im);
  if (im.op().inputs.empty()) return InvalidArgument(im.Where() + " has no inputs");
  KILN_RETURN_IF_ERROR(NeedInputs(im, im.op().inputs.size()));
  const int out = im.op().outputs[0];
  KILN_ASSIGN_OR_RETURN(int64_t axis, NormalizedAxis(im, o->axis(), im.rank(out)));
  bool nchw = false;
  for (int i : im.op().inputs) nchw |= im.HeldForm(i) == Form::kNchw;
  nchw &= im.rank(out) == 4;
  std::vector<ValueId> inputs;
  for (int i : im.op().inputs) {
    if (im.rank(i) != im.rank(out)) return NeedRank(im, i, im.rank(out));
    KILN_ASSIGN_OR_RETURN(ValueId v, im.Real(i, nchw ? Form::kNchw : Form::kPlain));
    inputs.push_back(v);
  }
  Attributes a;
  a.Set("axis", nchw ? NchwAxis(axis) : axis);
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kConcat, std::move(inputs), std::move(a)));
  KILN_ASSIGN_OR_RETURN(y, im.Activation(y, o->fused_activation_function()));
  return im.Define(out, y, nchw ? Form::kNchw : Form::kPlain);
}

// RESHAPE, SQUEEZE and EXPAND_DIMS all produce the declared output shape from the data in the
// model's (NHWC) element order.
Status ConvertReshape(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  KILN_ASSIGN_OR_RETURN(ValueId x, im.Real(im.op().inputs[0], Form::kPlain));
  const int out = im.op().outputs[0];
  KILN_ASSIGN_OR_RETURN(ValueId y, im.ReshapeTo(x, im.shape(out)));
  return im.Define(out, y, Form::kPlain);
}

Status ConvertTranspose(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> perm, im.ConstantInts(im.op().inputs[1]));
  KILN_ASSIGN_OR_RETURN(ValueId x, im.Real(im.op().inputs[0], Form::kPlain));
  Attributes a;
  a.Set("perm", perm);
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kTranspose, {x}, std::move(a)));
  return im.Define(im.op().outputs[0], y, Form::kPlain);
}

// paddings: int [rank, 2] (before, after per axis); PADV2 adds the pad value. Quantized
// tensors pad with real 0 (their zero point), as TFLite does.
Status ConvertPad(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const int x = im.op().inputs[0];
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> paddings, im.ConstantInts(im.op().inputs[1]));
  const int64_t r = im.rank(x);
  if (static_cast<int64_t>(paddings.size()) != 2 * r) {
    return InvalidArgument(im.Where() + ": paddings must have " + std::to_string(2 * r) +
                           " entries for rank " + std::to_string(r));
  }
  const Form f = im.HeldForm(x);
  std::vector<int64_t> pads(static_cast<size_t>(2 * r));
  for (int64_t d = 0; d < r; ++d) {
    const int64_t to = f == Form::kNchw ? NchwAxis(d) : d;
    pads[static_cast<size_t>(to)] = paddings[static_cast<size_t>(2 * d)];
    pads[static_cast<size_t>(to + r)] = paddings[static_cast<size_t>(2 * d + 1)];
  }
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  std::vector<ValueId> inputs = {xv, im.ConstI64(pads)};
  if (im.op().Input(2) >= 0) {
    KILN_ASSIGN_OR_RETURN(float value, ConstantReal(im, im.op().Input(2)));
    inputs.push_back(im.ConstF32(value));
  }
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kPad, std::move(inputs)));
  return im.Define(im.op().outputs[0], y, f);
}

// A rank-4 NCHW input is reduced in NCHW with kept dims; without keep_dims the result is
// brought back to NHWC order and reshaped to the declared shape (dropping H and W, as a global
// pool does, leaves the same order in both layouts; the fold passes remove what is left).
Status ConvertReduce(Importer& im, OpType type) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const auto* o = im.op().op->builtin_options_as_ReducerOptions();
  const bool keep = o && o->keep_dims();
  const int x = im.op().inputs[0], out = im.op().outputs[0];
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> axes, im.ConstantInts(im.op().inputs[1]));
  const Form f = im.HeldForm(x);
  for (int64_t& axis : axes) {
    KILN_ASSIGN_OR_RETURN(axis, NormalizedAxis(im, axis, im.rank(x)));
    if (f == Form::kNchw) axis = NchwAxis(axis);
  }
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  Attributes a;
  a.Set("keepdims", int64_t{f == Form::kNchw || keep ? 1 : 0});
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(type, {xv, im.ConstI64(axes)}, std::move(a)));
  if (f == Form::kPlain || keep) return im.Define(out, y, f);
  Attributes t;
  t.Set("perm", kToNhwc);
  KILN_ASSIGN_OR_RETURN(y, im.Emit(OpType::kTranspose, {y}, std::move(t)));
  KILN_ASSIGN_OR_RETURN(y, im.ReshapeTo(y, im.shape(out)));
  return im.Define(out, y, Form::kPlain);
}

// TFLite's coordinate rules as ONNX Resize attributes: align_corners; half_pixel_centers
// (bilinear: half_pixel; nearest: floor((x + 0.5) * in / out) = half_pixel with
// round_prefer_ceil); neither: asymmetric (nearest: floor).
Status ConvertResize(Importer& im, bool bilinear) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const int x = im.op().inputs[0];
  KILN_RETURN_IF_ERROR(NeedRank(im, x, 4));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> size, im.ConstantInts(im.op().inputs[1]));
  if (size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
    return InvalidArgument(im.Where() + ": size must be two positive extents");
  }
  bool align = false, half = false;
  if (bilinear) {
    const auto* o = im.op().op->builtin_options_as_ResizeBilinearOptions();
    if (o) align = o->align_corners(), half = o->half_pixel_centers();
  } else {
    const auto* o = im.op().op->builtin_options_as_ResizeNearestNeighborOptions();
    if (o) align = o->align_corners(), half = o->half_pixel_centers();
  }
  Attributes a;
  a.Set("mode", std::string(bilinear ? "linear" : "nearest"));
  a.Set("coordinate_transformation_mode", std::string(align  ? "align_corners"
                                                      : half ? "half_pixel"
                                                             : "asymmetric"));
  if (!bilinear) a.Set("nearest_mode", std::string(align || half ? "round_prefer_ceil" : "floor"));
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kNchw));
  const auto& s = im.shape(x);
  const ValueId sizes = im.ConstI64({s[0], s[3], size[0], size[1]});
  KILN_ASSIGN_OR_RETURN(ValueId y,
                        im.Emit(OpType::kResize, {xv, kNoValue, kNoValue, sizes}, std::move(a)));
  return im.Define(im.op().outputs[0], y, Form::kNchw);
}

// begin/end/strides constant; begin_mask/end_mask take the whole extent; shrink_axis_mask
// takes one element and drops the axis (a Reshape to the declared shape). ellipsis_mask,
// new_axis_mask and offset are refused.
Status ConvertStridedSlice(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 4));
  const auto* o = im.op().op->builtin_options_as_StridedSliceOptions();
  if (!o) return MissingOptions(im);
  if (o->ellipsis_mask() || o->new_axis_mask() || o->offset()) {
    return Unsupported(im.Where() + ": ellipsis_mask, new_axis_mask and offset are not supported");
  }
  const int x = im.op().inputs[0];
  const int64_t r = im.rank(x);
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> begin, im.ConstantInts(im.op().inputs[1]));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> end, im.ConstantInts(im.op().inputs[2]));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> strides, im.ConstantInts(im.op().inputs[3]));
  const auto n = static_cast<int64_t>(begin.size());
  if (n > r || end.size() != begin.size() || strides.size() != begin.size()) {
    return InvalidArgument(im.Where() +
                           ": begin, end and strides must have one entry per sliced axis");
  }
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const Form f = o->shrink_axis_mask() == 0 ? im.HeldForm(x) : Form::kPlain;
  std::vector<int64_t> axes;
  for (int64_t d = 0; d < n; ++d) {
    const auto k = static_cast<size_t>(d);
    if (strides[k] == 0) return InvalidArgument(im.Where() + ": stride 0");
    if (o->begin_mask() & (1 << d)) begin[k] = strides[k] > 0 ? 0 : kMax;
    if (o->end_mask() & (1 << d)) end[k] = strides[k] > 0 ? kMax : kMin;
    if (o->shrink_axis_mask() & (1 << d)) {
      end[k] = begin[k] == -1 ? kMax : begin[k] + 1;
      strides[k] = 1;
    }
    axes.push_back(f == Form::kNchw ? NchwAxis(d) : d);
  }
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  KILN_ASSIGN_OR_RETURN(ValueId y,
                        im.Emit(OpType::kSlice, {xv, im.ConstI64(begin), im.ConstI64(end),
                                                 im.ConstI64(axes), im.ConstI64(strides)}));
  const int out = im.op().outputs[0];
  if (o->shrink_axis_mask()) {
    KILN_ASSIGN_OR_RETURN(y, im.ReshapeTo(y, im.shape(out)));
  }
  return im.Define(out, y, f);
}

Status ConvertGather(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const auto* o = im.op().op->builtin_options_as_GatherOptions();
  if (o && o->batch_dims() != 0) return Unsupported(im.Where() + ": batch_dims");
  const int x = im.op().inputs[0], idx = im.op().inputs[1];
  KILN_ASSIGN_OR_RETURN(int64_t axis, NormalizedAxis(im, o ? o->axis() : 0, im.rank(x)));
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kPlain));
  KILN_ASSIGN_OR_RETURN(ValueId iv, im.Stored(idx, Form::kPlain));
  Attributes a;
  a.Set("axis", axis);
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kGather, {xv, iv}, std::move(a)));
  return im.Define(im.op().outputs[0], y, Form::kPlain);
}

// TensorFlow orders the moved block's channels as (row, column, channel): ONNX's DCR order, which
// is also SpaceToDepth's; in NCHW form.
Status ConvertDepthSpace(Importer& im, OpType type) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  int64_t block = 0;
  if (const auto* o = im.op().op->builtin_options_as_DepthToSpaceOptions()) block = o->block_size();
  if (const auto* o = im.op().op->builtin_options_as_SpaceToDepthOptions()) block = o->block_size();
  if (block < 1) return InvalidArgument(im.Where() + ": block_size must be positive");
  const int x = im.op().inputs[0];
  KILN_RETURN_IF_ERROR(NeedRank(im, x, 4));
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kNchw));
  Attributes a;
  a.Set("blocksize", block);
  if (type == OpType::kDepthToSpace) a.Set("mode", std::string("DCR"));
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(type, {xv}, std::move(a)));
  return im.Define(im.op().outputs[0], y, Form::kNchw);
}

}  // namespace kiln::tflite_import
