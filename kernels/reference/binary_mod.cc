// Reference Mod over numpy broadcasting: fmod=1 is C's fmod (the remainder takes the
// dividend's sign), fmod=0 (integers only) takes the divisor's sign, as Python's %. An integer
// remainder by 0 is 0 (as Div's x/0), never a trap; MIN % -1 is 0.
#include <cmath>
#include <type_traits>

#include "kernels/reference/binary.h"
#include "kernels/reference/cast_convert.h"

namespace kiln {
namespace {

template <typename C>
C TruncatedRem(C a, C b) {
  if constexpr (std::is_integral_v<C>) {
    if (b == C(0)) return C(0);
    if constexpr (std::is_signed_v<C>) {
      if (b == C(-1)) return C(0);  // avoids MIN % -1, which traps
    }
    return static_cast<C>(a % b);
  } else {
    return std::fmod(a, b);
  }
}

template <typename C>
C FlooredRem(C a, C b) {
  C r = TruncatedRem(a, b);
  if constexpr (std::is_signed_v<C>) {
    if (r != C(0) && ((r < C(0)) != (b < C(0)))) r = static_cast<C>(r + b);
  }
  return r;
}

template <typename T, bool kFmod>
void ApplyMod(const BroadcastPlan& plan, const T* a, const T* b, T* out) {
  using C = typename Elem<T>::Compute;
  BroadcastBinary(plan, a, b, out, [](T x, T y) {
    const C u = Elem<T>::Load(x), v = Elem<T>::Load(y);
    return Elem<T>::Store(kFmod ? TruncatedRem<C>(u, v) : FlooredRem<C>(u, v));
  });
}

}  // namespace

template <typename T>
Status ModKernel<T>::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(plan_, MakeNodeBroadcastPlan(ctx));
  const bool fmod = ctx.attrs().GetInt("fmod", 0) != 0;
  if constexpr (std::is_floating_point_v<typename Elem<T>::Compute>) {
    // The schema has refused fmod=0 on floats.
    if (!fmod) return InvalidArgument("Mod on floats needs fmod=1");
    fn_ = ApplyMod<T, true>;
  } else {
    fn_ = fmod ? ApplyMod<T, true> : ApplyMod<T, false>;
  }
  return Status::Ok();
}

template <typename T>
Status ModKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                         void*) {
  fn_(plan_, inputs[0].as<const T>(), inputs[1].as<const T>(), outputs[0].as<T>());
  return Status::Ok();
}

template class ModKernel<float>;
template class ModKernel<Float16>;
template class ModKernel<int8_t>;
template class ModKernel<uint8_t>;
template class ModKernel<int32_t>;
template class ModKernel<int64_t>;

}  // namespace kiln
