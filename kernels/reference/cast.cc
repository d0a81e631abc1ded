// Reference Cast: element conversions with ONNX semantics (see ConvertScalar).
#include "kernels/reference/cast.h"

#include <string>

#include "kernels/reference/cast_convert.h"

namespace kiln {
namespace {

template <typename From, typename To>
void Convert(const From* in, void* out, int64_t n) {
  To* o = static_cast<To*>(out);
  for (int64_t i = 0; i < n; ++i) o[i] = ConvertElem<To>(in[i]);
}

}  // namespace

template <typename From>
Status CastKernel<From>::Prepare(const KernelContext& ctx) {
  switch (ctx.output(0).dtype) {
    case DType::kF32:
      fn_ = Convert<From, float>;
      break;
    case DType::kF16:
      fn_ = Convert<From, Float16>;
      break;
    case DType::kI8:
      fn_ = Convert<From, int8_t>;
      break;
    case DType::kU8:
      fn_ = Convert<From, uint8_t>;
      break;
    case DType::kI32:
      fn_ = Convert<From, int32_t>;
      break;
    case DType::kI64:
      fn_ = Convert<From, int64_t>;
      break;
    case DType::kBool:
      fn_ = Convert<From, BoolByte>;
      break;
    default:
      return Unsupported("Cast to " + std::string(DTypeName(ctx.output(0).dtype)));
  }
  return Status::Ok();
}

template <typename From>
Status CastKernel<From>::Run(std::span<const TensorView> inputs,
                             std::span<const TensorView> outputs, void*) {
  fn_(inputs[0].as<const From>(), outputs[0].data, outputs[0].num_elements());
  return Status::Ok();
}

template class CastKernel<float>;
template class CastKernel<Float16>;
template class CastKernel<int8_t>;
template class CastKernel<uint8_t>;
template class CastKernel<int32_t>;
template class CastKernel<int64_t>;
template class CastKernel<BoolByte>;

}  // namespace kiln
