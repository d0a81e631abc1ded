// Reference CumSum: out[.., i, ..] = sum of x[.., j, ..] for j <= i (j < i when exclusive;
// j >= i / j > i when reversed). f16 sums in float, rounding each stored output; integer sums
// wrap (through uint64) rather than overflow. The axis is read at run time and checked there.
#include "kernels/reference/cumsum.h"

#include <string>
#include <type_traits>

#include "kernels/reference/cast_convert.h"

namespace kiln {

template <typename T>
Status CumSumKernel<T>::Prepare(const KernelContext& ctx) {
  shape_ = &ctx.input(0).shape;
  exclusive_ = ctx.attrs().GetInt("exclusive", 0) != 0;
  reverse_ = ctx.attrs().GetInt("reverse", 0) != 0;
  const DType at = ctx.input(1).dtype;
  if (at != DType::kI32 && at != DType::kI64) {
    return InvalidArgument("axis must be i32 or i64, got " + std::string(DTypeName(at)));
  }
  axis_i64_ = at == DType::kI64;
  return Status::Ok();
}

template <typename T>
Status CumSumKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                            void*) {
  using C = typename Elem<T>::Compute;
  const int64_t rank = static_cast<int64_t>(shape_->size());
  int64_t axis = axis_i64_ ? *inputs[1].as<const int64_t>() : *inputs[1].as<const int32_t>();
  const int64_t given = axis;
  if (!NormalizeAxis(axis, rank)) {
    return InvalidArgument("CumSum axis " + std::to_string(given) + " is out of range for rank " +
                           std::to_string(rank));
  }
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= (*shape_)[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= (*shape_)[static_cast<size_t>(d)];
  const int64_t n = (*shape_)[static_cast<size_t>(axis)];
  const T* x = inputs[0].as<const T>();
  T* y = outputs[0].as<T>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      const int64_t base = o * n * inner + in;
      C sum = C(0);
      for (int64_t s = 0; s < n; ++s) {
        const int64_t i = reverse_ ? n - 1 - s : s;
        const int64_t at = base + i * inner;
        const C v = Elem<T>::Load(x[at]);
        if (exclusive_) y[at] = Elem<T>::Store(sum);
        if constexpr (std::is_integral_v<C>) {
          sum = static_cast<C>(static_cast<uint64_t>(sum) + static_cast<uint64_t>(v));
        } else {
          sum += v;
        }
        if (!exclusive_) y[at] = Elem<T>::Store(sum);
      }
    }
  }
  return Status::Ok();
}

template class CumSumKernel<float>;
template class CumSumKernel<Float16>;
template class CumSumKernel<int32_t>;
template class CumSumKernel<int64_t>;

}  // namespace kiln
