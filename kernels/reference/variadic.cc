// Reference Max/Min/Sum/Mean: acc = input 0 broadcast to the output, then acc = op(acc, input k)
// for every further input through the shared broadcast helper. The accumulator has the compute
// type (float for f16), so f16 Sum/Mean round once at the end.
#include "kernels/reference/variadic.h"

#include <string>

#include "kernels/reference/cast_convert.h"

namespace kiln {

template <typename T>
Status VariadicKernel<T>::Prepare(const KernelContext& ctx) {
  op_ = ctx.node().op;
  if (op_ != OpType::kMax && op_ != OpType::kMin && op_ != OpType::kSum && op_ != OpType::kMean) {
    return Unsupported("VariadicKernel cannot run " + std::string(OpTypeName(op_)));
  }
  const Shape& out = ctx.output(0).shape;
  plans_.clear();
  for (size_t k = 0; k < ctx.num_inputs(); ++k) {
    KILN_ASSIGN_OR_RETURN(BroadcastPlan p, MakeBroadcastPlan(out, {out, ctx.input(k).shape}));
    plans_.push_back(std::move(p));
  }
  scratch_bytes_ = static_cast<size_t>(NumElements(out)) * sizeof(typename Elem<T>::Compute);
  return Status::Ok();
}

template <typename T>
Status VariadicKernel<T>::Run(std::span<const TensorView> inputs,
                              std::span<const TensorView> outputs, void* scratch) {
  using C = typename Elem<T>::Compute;
  C* acc = static_cast<C*>(scratch);
  const OpType op = op_;
  for (size_t k = 0; k < inputs.size(); ++k) {
    const T* in = inputs[k].as<const T>();
    ForEachBroadcast<2>(plans_[k], [&](int64_t i, const std::array<int64_t, 2>& off) {
      const C v = Elem<T>::Load(in[off[1]]);
      C& a = acc[off[0]];
      if (k == 0) {
        a = v;
      } else if (op == OpType::kMax) {
        a = v > a ? v : a;
      } else if (op == OpType::kMin) {
        a = v < a ? v : a;
      } else {
        a = static_cast<C>(a + v);
      }
    });
  }
  T* out = outputs[0].as<T>();
  const int64_t n = outputs[0].num_elements();
  const C count = static_cast<C>(inputs.size());
  for (int64_t i = 0; i < n; ++i) {
    out[i] = Elem<T>::Store(op == OpType::kMean ? static_cast<C>(acc[i] / count) : acc[i]);
  }
  return Status::Ok();
}

template class VariadicKernel<float>;
template class VariadicKernel<Float16>;
template class VariadicKernel<int8_t>;
template class VariadicKernel<uint8_t>;
template class VariadicKernel<int32_t>;
template class VariadicKernel<int64_t>;

}  // namespace kiln
