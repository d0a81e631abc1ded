// Reference comparisons over numpy broadcasting; f16 compares as float.
#include "kernels/reference/compare.h"

#include <functional>
#include <string>

#include "kernels/reference/binary.h"

namespace kiln {
namespace {

template <typename T, typename Cmp>
void Apply(const BroadcastPlan& plan, const T* a, const T* b, BoolByte* out) {
  BroadcastBinary(plan, a, b, out, [](T x, T y) {
    return Elem<BoolByte>::Store(Cmp()(Elem<T>::Load(x), Elem<T>::Load(y)));
  });
}

}  // namespace

template <typename T>
Status CompareKernel<T>::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(plan_, MakeNodeBroadcastPlan(ctx));
  switch (ctx.node().op) {
    case OpType::kEqual:
      fn_ = Apply<T, std::equal_to<>>;
      break;
    case OpType::kGreater:
      fn_ = Apply<T, std::greater<>>;
      break;
    case OpType::kLess:
      fn_ = Apply<T, std::less<>>;
      break;
    case OpType::kGreaterOrEqual:
      fn_ = Apply<T, std::greater_equal<>>;
      break;
    case OpType::kLessOrEqual:
      fn_ = Apply<T, std::less_equal<>>;
      break;
    default:
      return Unsupported("CompareKernel cannot run " + std::string(OpTypeName(ctx.node().op)));
  }
  return Status::Ok();
}

template <typename T>
Status CompareKernel<T>::Run(std::span<const TensorView> inputs,
                             std::span<const TensorView> outputs, void*) {
  fn_(plan_, inputs[0].as<const T>(), inputs[1].as<const T>(), outputs[0].as<BoolByte>());
  return Status::Ok();
}

template class CompareKernel<float>;
template class CompareKernel<Float16>;
template class CompareKernel<int8_t>;
template class CompareKernel<uint8_t>;
template class CompareKernel<int32_t>;
template class CompareKernel<int64_t>;
template class CompareKernel<BoolByte>;

}  // namespace kiln
