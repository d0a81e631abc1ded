// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV, FULLY_CONNECTED, pools, BATCH_MATMUL.
#include "parsers/tflite/tflite_ops.h"

namespace kiln::tflite_import {
namespace {

struct Window {
  int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1;
};

Status CheckWindow(const Importer& im, const Window& w) {
  for (int64_t v : {w.kh, w.kw, w.sh, w.sw, w.dh, w.dw}) {
    if (v < 1 || v > (int64_t{1} << 20)) {
      return InvalidArgument(im.Where() + ": kernel, stride and dilation must be positive (got " +
                             std::to_string(v) + ")");
    }
  }
  return Status::Ok();
}

// TFLite's SAME padding: the output is ceil(in / stride) and the total padding is split with
// the smaller half first (ONNX's SAME_UPPER), written out as explicit pads [t, l, b, r].
std::vector<int64_t> Pads(tflite::Padding padding, int64_t in_h, int64_t in_w, const Window& w) {
  if (padding != tflite::Padding::SAME) return {0, 0, 0, 0};
  auto total = [](int64_t in, int64_t k, int64_t s, int64_t d) {
    const int64_t out = (in + s - 1) / s;
    return std::max<int64_t>((out - 1) * s + (k - 1) * d + 1 - in, 0);
  };
  const int64_t th = total(in_h, w.kh, w.sh, w.dh), tw = total(in_w, w.kw, w.sw, w.dw);
  return {th / 2, tw / 2, th - th / 2, tw - tw / 2};
}

Attributes WindowAttrs(const Window& w, const std::vector<int64_t>& pads) {
  Attributes a;
  a.Set("kernel_shape", std::vector<int64_t>{w.kh, w.kw});
  a.Set("strides", std::vector<int64_t>{w.sh, w.sw});
  a.Set("pads", pads);
  return a;
}

// The bias input (optional), as f32 (DequantizeLinear of int32 biases).
Status AddBias(Importer& im, int bias, std::vector<ValueId>& inputs) {
  if (bias < 0) return Status::Ok();
  KILN_ASSIGN_OR_RETURN(ValueId b, im.Weight(bias, {}));
  inputs.push_back(b);
  return Status::Ok();
}

Status Finish(Importer& im, ValueId y, tflite::ActivationFunctionType act, Form form) {
  KILN_ASSIGN_OR_RETURN(y, im.Activation(y, act));
  return im.Define(im.op().outputs[0], y, form);
}

}  // namespace

Status ConvertConv2D(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const auto* o = im.op().op->builtin_options_as_Conv2DOptions();
  if (!o) return MissingOptions(im);
  const int x = im.op().inputs[0], w = im.op().inputs[1];
  KILN_RETURN_IF_ERROR(NeedRank(im, x, 4));
  KILN_RETURN_IF_ERROR(NeedRank(im, w, 4));
  const auto& xs = im.shape(x);
  const auto& ws = im.shape(w);  // [O, H, W, I]
  if (ws[3] <= 0 || xs[3] % ws[3] != 0) {
    return InvalidArgument(im.Where() + ": input channels " + std::to_string(xs[3]) +
                           " are not a multiple of the filter's " + std::to_string(ws[3]));
  }
  Window win{
      ws[1], ws[2], o->stride_h(), o->stride_w(), o->dilation_h_factor(), o->dilation_w_factor()};
  KILN_RETURN_IF_ERROR(CheckWindow(im, win));
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kNchw));
  KILN_ASSIGN_OR_RETURN(ValueId wv, im.Weight(w, {0, 3, 1, 2}));  // OHWI -> OIHW
  std::vector<ValueId> inputs = {xv, wv};
  KILN_RETURN_IF_ERROR(AddBias(im, im.op().Input(2), inputs));
  Attributes a = WindowAttrs(win, Pads(o->padding(), xs[1], xs[2], win));
  a.Set("dilations", std::vector<int64_t>{win.dh, win.dw});
  a.Set("group", xs[3] / ws[3]);
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kConv, std::move(inputs), std::move(a)));
  return Finish(im, y, o->fused_activation_function(), Form::kNchw);
}

Status ConvertDepthwiseConv2D(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const auto* o = im.op().op->builtin_options_as_DepthwiseConv2DOptions();
  if (!o) return MissingOptions(im);
  const int x = im.op().inputs[0], w = im.op().inputs[1];
  KILN_RETURN_IF_ERROR(NeedRank(im, x, 4));
  KILN_RETURN_IF_ERROR(NeedRank(im, w, 4));
  const auto& xs = im.shape(x);
  const auto& ws = im.shape(w);  // [1, H, W, C * multiplier]
  if (ws[0] != 1 || xs[3] <= 0 || ws[3] % xs[3] != 0) {
    return InvalidArgument(im.Where() + ": depthwise filter " + ShapeToString(ws) +
                           " does not fit " + std::to_string(xs[3]) + " input channels");
  }
  Window win{
      ws[1], ws[2], o->stride_h(), o->stride_w(), o->dilation_h_factor(), o->dilation_w_factor()};
  KILN_RETURN_IF_ERROR(CheckWindow(im, win));
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kNchw));
  KILN_ASSIGN_OR_RETURN(ValueId wv, im.Weight(w, {3, 0, 1, 2}));  // -> [C*M, 1, H, W]
  std::vector<ValueId> inputs = {xv, wv};
  KILN_RETURN_IF_ERROR(AddBias(im, im.op().Input(2), inputs));
  Attributes a = WindowAttrs(win, Pads(o->padding(), xs[1], xs[2], win));
  a.Set("dilations", std::vector<int64_t>{win.dh, win.dw});
  a.Set("group", xs[3]);
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kConv, std::move(inputs), std::move(a)));
  return Finish(im, y, o->fused_activation_function(), Form::kNchw);
}

// Inputs: output_shape (int32 [4], NHWC), weights [O, H, W, I], input, bias (optional).
Status ConvertTransposeConv(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 3));
  const auto* o = im.op().op->builtin_options_as_TransposeConvOptions();
  if (!o) return MissingOptions(im);
  const int w = im.op().inputs[1], x = im.op().inputs[2];
  KILN_RETURN_IF_ERROR(NeedRank(im, x, 4));
  KILN_RETURN_IF_ERROR(NeedRank(im, w, 4));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> out_shape, im.ConstantInts(im.op().inputs[0]));
  if (out_shape.size() != 4) {
    return InvalidArgument(im.Where() + ": output_shape must have 4 entries");
  }
  const auto& ws = im.shape(w);
  Window win{ws[1], ws[2], o->stride_h(), o->stride_w(), 1, 1};
  KILN_RETURN_IF_ERROR(CheckWindow(im, win));
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kNchw));
  KILN_ASSIGN_OR_RETURN(ValueId wv, im.Weight(w, {3, 0, 1, 2}));  // -> [I, O, H, W]
  std::vector<ValueId> inputs = {xv, wv};
  KILN_RETURN_IF_ERROR(AddBias(im, im.op().Input(3), inputs));
  Attributes a;
  a.Set("kernel_shape", std::vector<int64_t>{win.kh, win.kw});
  a.Set("strides", std::vector<int64_t>{win.sh, win.sw});
  // TFLite places the output at in * stride - pad_before with pad_before = floor(total / 2):
  // ONNX's output_shape with SAME_UPPER splits the total padding the same way.
  a.Set("output_shape", std::vector<int64_t>{out_shape[1], out_shape[2]});
  if (o->padding() == tflite::Padding::SAME) a.Set("auto_pad", std::string("SAME_UPPER"));
  KILN_ASSIGN_OR_RETURN(ValueId y,
                        im.Emit(OpType::kConvTranspose, std::move(inputs), std::move(a)));
  return Finish(im, y, o->fused_activation_function(), Form::kNchw);
}

// y = x W^T + b over the last axis of x (flattened to [rows, K]), W: [N, K].
Status ConvertFullyConnected(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const auto* o = im.op().op->builtin_options_as_FullyConnectedOptions();
  if (!o) return MissingOptions(im);
  if (o->weights_format() != tflite::FullyConnectedOptionsWeightsFormat::DEFAULT) {
    return Unsupported(im.Where() + ": shuffled weights format");
  }
  const int x = im.op().inputs[0], w = im.op().inputs[1];
  KILN_RETURN_IF_ERROR(NeedRank(im, w, 2));
  const int64_t k = im.shape(w)[1];
  int64_t elements = 1;
  for (int64_t d : im.shape(x)) {
    KILN_ASSIGN_OR_RETURN(elements, CheckedMul(elements, d, "input size"));
  }
  if (k <= 0 || elements % k != 0) {
    return InvalidArgument(im.Where() + ": input " + ShapeToString(im.shape(x)) +
                           " does not divide into rows of " + std::to_string(k));
  }
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kPlain));
  if (im.shape(x) != std::vector<int64_t>{elements / k, k}) {
    KILN_ASSIGN_OR_RETURN(xv, im.ReshapeTo(xv, {elements / k, k}));
  }
  KILN_ASSIGN_OR_RETURN(ValueId wv, im.Weight(w, {}));
  std::vector<ValueId> inputs = {xv, wv};
  KILN_RETURN_IF_ERROR(AddBias(im, im.op().Input(2), inputs));
  Attributes a;
  a.Set("transB", int64_t{1});
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kGemm, std::move(inputs), std::move(a)));
  KILN_ASSIGN_OR_RETURN(y, im.Activation(y, o->fused_activation_function()));
  const int out = im.op().outputs[0];
  if (im.graph().value(y).shape != im.shape(out)) {
    KILN_ASSIGN_OR_RETURN(y, im.ReshapeTo(y, im.shape(out)));
  }
  return im.Define(out, y, Form::kPlain);
}

Status ConvertPool2D(Importer& im, OpType type) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  const auto* o = im.op().op->builtin_options_as_Pool2DOptions();
  if (!o) return MissingOptions(im);
  const int x = im.op().inputs[0];
  KILN_RETURN_IF_ERROR(NeedRank(im, x, 4));
  Window win{o->filter_height(), o->filter_width(), o->stride_h(), o->stride_w(), 1, 1};
  KILN_RETURN_IF_ERROR(CheckWindow(im, win));
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, Form::kNchw));
  // AveragePool's default count_include_pad=0 is TFLite's: padded cells are not counted.
  Attributes a = WindowAttrs(win, Pads(o->padding(), im.shape(x)[1], im.shape(x)[2], win));
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(type, {xv}, std::move(a)));
  return Finish(im, y, o->fused_activation_function(), Form::kNchw);
}

Status ConvertBatchMatMul(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const auto* o = im.op().op->builtin_options_as_BatchMatMulOptions();
  const int a = im.op().inputs[0], b = im.op().inputs[1];
  ValueId av, bv;
  KILN_ASSIGN_OR_RETURN(av, im.IsConstant(a) ? im.Weight(a, {}) : im.Real(a, Form::kPlain));
  KILN_ASSIGN_OR_RETURN(bv, im.IsConstant(b) ? im.Weight(b, {}) : im.Real(b, Form::kPlain));
  auto swap_last = [&](ValueId v, int t) -> Expected<ValueId> {
    const int64_t r = im.rank(t);
    if (r < 2)
      return InvalidArgument(im.Where() + ": adjoint of a rank-" + std::to_string(r) + " tensor");
    std::vector<int64_t> perm(static_cast<size_t>(r));
    for (int64_t k = 0; k < r; ++k) perm[static_cast<size_t>(k)] = k;
    std::swap(perm[static_cast<size_t>(r - 1)], perm[static_cast<size_t>(r - 2)]);
    Attributes at;
    at.Set("perm", perm);
    return im.Emit(OpType::kTranspose, {v}, std::move(at));
  };
  if (o && o->adj_x()) {
    KILN_ASSIGN_OR_RETURN(av, swap_last(av, a));
  }
  if (o && o->adj_y()) {
    KILN_ASSIGN_OR_RETURN(bv, swap_last(bv, b));
  }
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kMatMul, {av, bv}));
  return im.Define(im.op().outputs[0], y, Form::kPlain);
}

}  // namespace kiln::tflite_import
