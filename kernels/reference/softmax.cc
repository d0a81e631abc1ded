// Reference Softmax/LogSoftmax: the max along the axis is subtracted before exp() so large
// inputs do not overflow; sums accumulate in double.
#include "kernels/reference/softmax.h"

#include <cmath>
#include <string>

#include "kernels/reference/cast_convert.h"

namespace kiln {

template <typename T>
Status SoftmaxKernel<T>::Prepare(const KernelContext& ctx) {
  log_ = ctx.node().op == OpType::kLogSoftmax;
  const Shape& shape = ctx.input(0).shape;
  int64_t axis = ctx.attrs().GetInt("axis", -1);
  if (!NormalizeAxis(axis, static_cast<int64_t>(shape.size()))) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", -1)) +
                           " is out of range for rank " + std::to_string(shape.size()));
  }
  outer_ = 1;
  inner_ = 1;
  for (int64_t d = 0; d < axis; ++d) outer_ *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner_ *= shape[d];
  axis_ = shape[static_cast<size_t>(axis)];
  return Status::Ok();
}

template <typename T>
Status SoftmaxKernel<T>::Run(std::span<const TensorView> inputs,
                             std::span<const TensorView> outputs, void*) {
  const T* in = inputs[0].as<const T>();
  T* out = outputs[0].as<T>();
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t i = 0; i < inner_; ++i) {
      const int64_t base = o * axis_ * inner_ + i;
      float max = -INFINITY;
      for (int64_t a = 0; a < axis_; ++a) {
        max = std::fmax(max, Elem<T>::Load(in[base + a * inner_]));
      }
      double sum = 0.0;
      for (int64_t a = 0; a < axis_; ++a) {
        sum += std::exp(static_cast<double>(Elem<T>::Load(in[base + a * inner_])) - max);
      }
      const double log_sum = std::log(sum);
      for (int64_t a = 0; a < axis_; ++a) {
        const double shifted = static_cast<double>(Elem<T>::Load(in[base + a * inner_])) - max;
        const double y = log_ ? shifted - log_sum : std::exp(shifted) / sum;
        out[base + a * inner_] = Elem<T>::Store(static_cast<float>(y));
      }
    }
  }
  return Status::Ok();
}

template class SoftmaxKernel<float>;
template class SoftmaxKernel<Float16>;

}  // namespace kiln
