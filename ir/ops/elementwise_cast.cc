// Inference of the dtype conversions: Cast, QuantizeLinear, DequantizeLinear.
#include <string>

#include "ir/ops/elementwise_infer.h"

namespace kiln {
namespace {

std::string Name(DType t) { return std::string(DTypeName(t)); }

// Cast's `to` attribute keeps ONNX's TensorProto.DataType numbering (the parser imports the
// attribute verbatim), so it is mapped here rather than read as a Kiln DType value.
Expected<DType> DTypeFromOnnxCode(int64_t code) {
  switch (code) {
    case 1:
      return DType::kF32;
    case 2:
      return DType::kU8;
    case 3:
      return DType::kI8;
    case 6:
      return DType::kI32;
    case 7:
      return DType::kI64;
    case 9:
      return DType::kBool;
    case 10:
      return DType::kF16;
    default:
      return Unsupported("Cast to ONNX data type " + std::to_string(code) +
                         " is not supported (Kiln dtypes: f32 f16 i8 u8 i32 i64 bool)");
  }
}

// Scale/zero-point checks shared by QuantizeLinear and DequantizeLinear. Per-tensor params
// have one element; per-axis params are 1-D with x.shape[axis] elements.
Status CheckQuantParams(const InferenceContext& ctx) {
  const Shape& x = ctx.input_shape(0);
  const Shape& scale = ctx.input_shape(1);
  const int64_t n = ctx.input(1).num_elements();
  if (ctx.input_dtype(1) != DType::kF32) {
    return InvalidArgument("scale must be f32, got " + Name(ctx.input_dtype(1)));
  }
  if (scale.size() > 1) {
    return InvalidArgument("scale must be a scalar or 1-D, got shape " + ShapeToString(scale));
  }
  if (n != 1) {  // per-axis
    int64_t axis = ctx.attrs().GetInt("axis", 1);
    if (!NormalizeAxis(axis, static_cast<int64_t>(x.size()))) {
      return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", 1)) +
                             " is out of range for rank " + std::to_string(x.size()));
    }
    if (n != x[static_cast<size_t>(axis)]) {
      return InvalidArgument("per-axis scale has " + std::to_string(n) + " elements but axis " +
                             std::to_string(axis) + " has " +
                             std::to_string(x[static_cast<size_t>(axis)]));
    }
  }
  if (ctx.has_input(2) && ctx.input(2).num_elements() != n) {
    return InvalidArgument("zero point shape " + ShapeToString(ctx.input_shape(2)) +
                           " differs from scale shape " + ShapeToString(scale));
  }
  return Status::Ok();
}

}  // namespace

Status InferCast(InferenceContext& ctx) {
  if (!ctx.attrs().Has("to")) return InvalidArgument("missing required attribute 'to'");
  KILN_ASSIGN_OR_RETURN(DType to, DTypeFromOnnxCode(ctx.attrs().GetInt("to", 0)));
  ctx.SetOutput(0, to, ctx.input_shape(0));
  return Status::Ok();
}

Status InferQuantizeLinear(InferenceContext& ctx) {
  const DType x = ctx.input_dtype(0);
  if (!IsFloat(x)) return InvalidArgument("input must be f32 or f16, got " + Name(x));
  KILN_RETURN_IF_ERROR(CheckQuantParams(ctx));
  DType out = DType::kU8;  // ONNX default when the zero point is omitted
  if (ctx.has_input(2)) {
    out = ctx.input_dtype(2);
    if (out != DType::kU8 && out != DType::kI8 && out != DType::kI16) {
      return InvalidArgument("zero point must be u8, i8 or i16, got " + Name(out));
    }
  }
  ctx.SetOutput(0, out, ctx.input_shape(0));
  return Status::Ok();
}

Status InferDequantizeLinear(InferenceContext& ctx) {
  const DType x = ctx.input_dtype(0);
  if (x != DType::kU8 && x != DType::kI8 && x != DType::kI16 && x != DType::kI32) {
    return InvalidArgument("input must be u8, i8, i16 or i32, got " + Name(x));
  }
  KILN_RETURN_IF_ERROR(CheckQuantParams(ctx));
  if (ctx.has_input(2) && ctx.input_dtype(2) != x) {
    return InvalidArgument("zero point dtype " + Name(ctx.input_dtype(2)) +
                           " differs from the input's " + Name(x));
  }
  ctx.SetOutput(0, DType::kF32, ctx.input_shape(0));
  return Status::Ok();
}

}  // namespace kiln
