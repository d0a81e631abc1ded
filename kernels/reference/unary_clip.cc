// Reference Clip: min/max are optional scalar inputs, defaulting to the type's range.
#include <limits>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/unary.h"

namespace kiln {

template <typename T>
Status ClipKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                          void*) {
  using C = typename Elem<T>::Compute;
  C lo = std::numeric_limits<C>::lowest();
  C hi = std::numeric_limits<C>::max();
  if (inputs.size() > 1 && inputs[1].data) lo = Elem<T>::Load(inputs[1].as<const T>()[0]);
  if (inputs.size() > 2 && inputs[2].data) hi = Elem<T>::Load(inputs[2].as<const T>()[0]);
  const T* in = inputs[0].as<const T>();
  T* out = outputs[0].as<T>();
  const int64_t n = outputs[0].num_elements();
  // ONNX: with min > max every element becomes max (numpy.clip order: max applied last).
  for (int64_t i = 0; i < n; ++i) {
    C v = Elem<T>::Load(in[i]);
    if (v < lo) v = lo;
    if (v > hi) v = hi;
    out[i] = Elem<T>::Store(v);
  }
  return Status::Ok();
}

template class ClipKernel<float>;
template class ClipKernel<Float16>;
template class ClipKernel<int8_t>;
template class ClipKernel<uint8_t>;
template class ClipKernel<int32_t>;
template class ClipKernel<int64_t>;

}  // namespace kiln
