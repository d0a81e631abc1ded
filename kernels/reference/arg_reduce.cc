// Reference ArgMax/ArgMin: first (or, with select_last_index, last) index of the extremum.
#include "kernels/reference/arg_reduce.h"

#include <string>

#include "kernels/reference/cast_convert.h"

namespace kiln {

template <typename T>
Status ArgReduceKernel<T>::Prepare(const KernelContext& ctx) {
  is_max_ = ctx.node().op == OpType::kArgMax;
  select_last_ = ctx.attrs().GetInt("select_last_index", 0) != 0;
  const Shape& shape = ctx.input(0).shape;
  int64_t axis = ctx.attrs().GetInt("axis", 0);
  if (!NormalizeAxis(axis, static_cast<int64_t>(shape.size()))) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", 0)) +
                           " is out of range for rank " + std::to_string(shape.size()));
  }
  outer_ = 1;
  inner_ = 1;
  for (int64_t d = 0; d < axis; ++d) outer_ *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d) inner_ *= shape[d];
  axis_ = shape[static_cast<size_t>(axis)];
  if (axis_ == 0) return InvalidArgument("cannot take the arg-extremum over an empty axis");
  return Status::Ok();
}

template <typename T>
Status ArgReduceKernel<T>::Run(std::span<const TensorView> inputs,
                               std::span<const TensorView> outputs, void*) {
  using C = typename Elem<T>::Compute;
  const T* in = inputs[0].as<const T>();
  int64_t* out = outputs[0].as<int64_t>();
  for (int64_t o = 0; o < outer_; ++o) {
    for (int64_t i = 0; i < inner_; ++i) {
      const int64_t base = o * axis_ * inner_ + i;
      C best = Elem<T>::Load(in[base]);
      int64_t best_index = 0;
      for (int64_t a = 1; a < axis_; ++a) {
        const C v = Elem<T>::Load(in[base + a * inner_]);
        const bool better = is_max_ ? (v > best || (select_last_ && v == best))
                                    : (v < best || (select_last_ && v == best));
        if (better) {
          best = v;
          best_index = a;
        }
      }
      out[o * inner_ + i] = best_index;
    }
  }
  return Status::Ok();
}

template class ArgReduceKernel<float>;
template class ArgReduceKernel<Float16>;
template class ArgReduceKernel<int8_t>;
template class ArgReduceKernel<uint8_t>;
template class ArgReduceKernel<int32_t>;
template class ArgReduceKernel<int64_t>;

}  // namespace kiln
