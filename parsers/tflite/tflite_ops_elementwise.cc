// ADD/SUB/MUL/DIV/MAXIMUM/MINIMUM/PRELU with broadcasting, unary activations, SOFTMAX,
// QUANTIZE/DEQUANTIZE.
#include "parsers/tflite/tflite_ops.h"

namespace kiln::tflite_import {
namespace {

// The fused activation of the binary ops that have one.
tflite::ActivationFunctionType BinaryActivation(const tflite::Operator& op) {
  if (auto* o = op.builtin_options_as_AddOptions()) return o->fused_activation_function();
  if (auto* o = op.builtin_options_as_SubOptions()) return o->fused_activation_function();
  if (auto* o = op.builtin_options_as_MulOptions()) return o->fused_activation_function();
  if (auto* o = op.builtin_options_as_DivOptions()) return o->fused_activation_function();
  return tflite::ActivationFunctionType::NONE;
}

}  // namespace

// A rank-4 output is computed in NCHW when an operand already is (a convolution's output);
// the other operands are aligned to it (NHWC broadcasting: trailing axes). Otherwise in the
// model's own order.
Status ConvertBinary(Importer& im, OpType type) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 2));
  const int a = im.op().inputs[0], b = im.op().inputs[1], out = im.op().outputs[0];
  const bool nchw =
      im.rank(out) == 4 && (im.HeldForm(a) == Form::kNchw || im.HeldForm(b) == Form::kNchw);
  ValueId av, bv;
  if (nchw) {
    KILN_ASSIGN_OR_RETURN(av, im.RealAsNchw(a));
    KILN_ASSIGN_OR_RETURN(bv, im.RealAsNchw(b));
  } else {
    KILN_ASSIGN_OR_RETURN(av, im.Real(a, Form::kPlain));
    KILN_ASSIGN_OR_RETURN(bv, im.Real(b, Form::kPlain));
  }
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(type, {av, bv}));
  KILN_ASSIGN_OR_RETURN(y, im.Activation(y, BinaryActivation(*im.op().op)));
  return im.Define(out, y, nchw ? Form::kNchw : Form::kPlain);
}

Status ConvertUnary(Importer& im, OpType type) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  const int x = im.op().inputs[0];
  const Form f = im.HeldForm(x);
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(type, {xv}));
  return im.Define(im.op().outputs[0], y, f);
}

Status ConvertClamp(Importer& im, float lo, float hi) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  const int x = im.op().inputs[0];
  const Form f = im.HeldForm(x);
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kClip, {xv, im.ConstF32(lo), im.ConstF32(hi)}));
  return im.Define(im.op().outputs[0], y, f);
}

Status ConvertLeakyRelu(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  const auto* o = im.op().op->builtin_options_as_LeakyReluOptions();
  if (!o) return MissingOptions(im);
  const int x = im.op().inputs[0];
  const Form f = im.HeldForm(x);
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  Attributes a;
  a.Set("alpha", o->alpha());
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kLeakyRelu, {xv}, std::move(a)));
  return im.Define(im.op().outputs[0], y, f);
}

// softmax(beta * x) over the last axis (NHWC channels: axis 1 of the NCHW form).
Status ConvertSoftmax(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  const auto* o = im.op().op->builtin_options_as_SoftmaxOptions();
  const float beta = o ? o->beta() : 1.f;
  const int x = im.op().inputs[0];
  if (im.rank(x) == 0) return InvalidArgument(im.Where() + ": softmax of a scalar");
  const Form f = im.HeldForm(x);
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  if (beta != 1.f) {
    KILN_ASSIGN_OR_RETURN(xv, im.Emit(OpType::kMul, {xv, im.ConstF32(beta)}));
  }
  Attributes a;
  a.Set("axis", f == Form::kNchw ? int64_t{1} : int64_t{-1});
  KILN_ASSIGN_OR_RETURN(ValueId y, im.Emit(OpType::kSoftmax, {xv}, std::move(a)));
  return im.Define(im.op().outputs[0], y, f);
}

// Both are the identity on real values: the input is read as real (DequantizeLinear of codes,
// a Cast of float16) and Define writes the output's codes (QuantizeLinear) when it has any.
// A QUANTIZE from one quantized type to another is therefore DequantizeLinear ->
// QuantizeLinear, which lower-qdq makes one requantizing integer op.
Status ConvertQuantizeOrDequantize(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  const int x = im.op().inputs[0];
  const Form f = im.HeldForm(x);
  KILN_ASSIGN_OR_RETURN(ValueId xv, im.Real(x, f));
  return im.Define(im.op().outputs[0], xv, f);
}

// The sparse constant is expanded when it is read (tflite_sparsity.h); the op moves it as it is.
Status ConvertDensify(Importer& im) {
  KILN_RETURN_IF_ERROR(NeedInputs(im, 1));
  KILN_ASSIGN_OR_RETURN(ValueId x, im.Stored(im.op().inputs[0], Form::kPlain));
  return im.DefineStored(im.op().outputs[0], x, Form::kPlain);
}

}  // namespace kiln::tflite_import
