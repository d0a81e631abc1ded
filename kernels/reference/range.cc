// Reference Range: output[i] = start + i * delta, as the ONNX spec writes it (not an
// accumulated sum, so float rounding matches the spec's reference).
#include "kernels/reference/range.h"

#include <string>

namespace kiln {

template <typename T>
Status RangeKernel<T>::Prepare(const KernelContext& ctx) {
  for (size_t i = 0; i < 3; ++i) {
    if (ctx.input(i).dtype != DTypeOf<T>::value || ctx.input(i).num_elements() != 1) {
      return InvalidArgument("input " + std::to_string(i) + " must be a " +
                             std::string(DTypeName(DTypeOf<T>::value)) + " scalar");
    }
  }
  if (ctx.output(0).dtype != DTypeOf<T>::value || ctx.output(0).shape.size() != 1) {
    return Internal("Range output must be 1-D " + std::string(DTypeName(DTypeOf<T>::value)));
  }
  count_ = ctx.output(0).shape[0];
  return Status::Ok();
}

template <typename T>
Status RangeKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                           void* scratch) {
  const T start = *inputs[0].as<const T>();
  const T delta = *inputs[2].as<const T>();
  T* out = outputs[0].as<T>();
  for (int64_t i = 0; i < count_; ++i) out[i] = static_cast<T>(start + static_cast<T>(i) * delta);
  return Status::Ok();
}

template class RangeKernel<float>;
template class RangeKernel<int32_t>;
template class RangeKernel<int64_t>;

}  // namespace kiln
