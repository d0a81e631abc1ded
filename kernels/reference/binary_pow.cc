// Reference Pow: base and exponent may differ in dtype (Pow-15); the result has the base's.
#include <cmath>
#include <string>
#include <type_traits>

#include "kernels/reference/binary.h"
#include "kernels/reference/cast_convert.h"

namespace kiln {
namespace {

// Exact integer power by squaring (wrapping like numpy); a negative exponent gives the
// truncated value of 1/b^|e|: only bases 1 and -1 are non-zero.
template <typename C>
C IntPow(C base, int64_t e) {
  if (e < 0) {
    if (base == C(1)) return C(1);
    if constexpr (std::is_signed_v<C>) {
      if (base == C(-1)) return (e % 2 == 0) ? C(1) : C(-1);
    }
    return C(0);
  }
  uint64_t result = 1;
  uint64_t b = static_cast<uint64_t>(base);
  while (e > 0) {
    if (e & 1) result *= b;
    b *= b;
    e >>= 1;
  }
  return static_cast<C>(result);
}

template <typename T, typename E>
void ApplyPow(const BroadcastPlan& plan, const T* base, const void* exponent, T* out) {
  const E* exp = static_cast<const E*>(exponent);
  using CB = typename Elem<T>::Compute;
  using CE = typename Elem<E>::Compute;
  BroadcastBinary(plan, base, exp, out, [](T b, E e) {
    const CB x = Elem<T>::Load(b);
    const CE y = Elem<E>::Load(e);
    if constexpr (std::is_integral_v<CB> && std::is_integral_v<CE>) {
      return Elem<T>::Store(IntPow<CB>(x, static_cast<int64_t>(y)));
    } else {
      const double r = std::pow(static_cast<double>(x), static_cast<double>(y));
      return Elem<T>::Store(ConvertScalar<CB>(r));
    }
  });
}

}  // namespace

template <typename T>
Status PowKernel<T>::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(plan_, MakeNodeBroadcastPlan(ctx));
  switch (ctx.input(1).dtype) {
    case DType::kF32:
      fn_ = ApplyPow<T, float>;
      break;
    case DType::kF16:
      fn_ = ApplyPow<T, Float16>;
      break;
    case DType::kI32:
      fn_ = ApplyPow<T, int32_t>;
      break;
    case DType::kI64:
      fn_ = ApplyPow<T, int64_t>;
      break;
    case DType::kI8:
      fn_ = ApplyPow<T, int8_t>;
      break;
    case DType::kU8:
      fn_ = ApplyPow<T, uint8_t>;
      break;
    default:
      return Unsupported("Pow exponent dtype " + std::string(DTypeName(ctx.input(1).dtype)) +
                         " is not supported");
  }
  return Status::Ok();
}

template <typename T>
Status PowKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                         void*) {
  fn_(plan_, inputs[0].as<const T>(), inputs[1].data, outputs[0].as<T>());
  return Status::Ok();
}

template class PowKernel<float>;
template class PowKernel<Float16>;
template class PowKernel<int32_t>;
template class PowKernel<int64_t>;

}  // namespace kiln
