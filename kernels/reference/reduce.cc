// Reference reductions: every input element is combined into its output element's
// accumulator (found through the broadcast helper), then the accumulators are finalised.
#include "kernels/reference/reduce.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

#include "ir/ops/reduce_axes.h"
#include "kernels/reference/cast_convert.h"

namespace kiln {

template <typename T>
Status ReduceKernel<T>::Prepare(const KernelContext& ctx) {
  op_ = ctx.node().op;
  const Shape& in = ctx.input(0).shape;
  std::vector<int64_t> axes;
  const bool has_axes_input = ctx.has_input(1);
  if (has_axes_input) {
    const Value& v = ctx.input(1);
    if (!v.constant) return InvalidArgument("axes input must be constant");
    const size_t n = static_cast<size_t>(v.num_elements());
    for (size_t i = 0; i < n; ++i) {
      axes.push_back(v.dtype == DType::kI32 ? v.constant->as<int32_t>()[i]
                                            : v.constant->as<int64_t>()[i]);
    }
  }
  KILN_ASSIGN_OR_RETURN(std::vector<bool> reduced,
                        ResolveReduceAxes(ctx.attrs(), has_axes_input ? &axes : nullptr,
                                          static_cast<int64_t>(in.size())));
  const Shape keep = ReducedShape(in, reduced, /*keepdims=*/true);
  KILN_ASSIGN_OR_RETURN(plan_, MakeBroadcastPlan(in, {keep}));
  count_ = NumElements(keep) == 0 ? 0 : NumElements(in) / NumElements(keep);
  scratch_bytes_ = static_cast<size_t>(NumElements(keep)) * sizeof(Acc);
  return Status::Ok();
}

template <typename T>
Status ReduceKernel<T>::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                            void* scratch) {
  using C = typename Elem<T>::Compute;
  const T* in = inputs[0].as<const T>();
  T* out = outputs[0].as<T>();
  Acc* acc = static_cast<Acc*>(scratch);
  const int64_t n = outputs[0].num_elements();
  const OpType op = op_;

  Acc init = 0;
  if (op == OpType::kReduceProd) init = 1;
  if (op == OpType::kReduceMax) init = std::numeric_limits<Acc>::lowest();
  if (op == OpType::kReduceMin) init = std::numeric_limits<Acc>::max();
  if constexpr (std::is_floating_point_v<Acc>) {
    if (op == OpType::kReduceMax) init = -INFINITY;
    if (op == OpType::kReduceMin) init = INFINITY;
  }
  for (int64_t i = 0; i < n; ++i) acc[i] = init;

  ForEachBroadcast<1>(plan_, [&](int64_t i, const std::array<int64_t, 1>& off) {
    const Acc v = static_cast<Acc>(Elem<T>::Load(in[i]));
    Acc& a = acc[off[0]];
    switch (op) {
      case OpType::kReduceMax:
        a = v > a ? v : a;
        break;
      case OpType::kReduceMin:
        a = v < a ? v : a;
        break;
      case OpType::kReduceProd:
        a *= v;
        break;
      case OpType::kReduceL2:
        a += v * v;
        break;
      default:
        a += v;
        break;  // Sum, Mean
    }
  });

  for (int64_t i = 0; i < n; ++i) {
    Acc r = acc[i];
    if (op == OpType::kReduceMean && count_ > 0) r /= static_cast<Acc>(count_);
    if (op == OpType::kReduceL2) r = static_cast<Acc>(std::sqrt(static_cast<double>(r)));
    // Bool Max/Min (opset 20) are any/all; an empty set leaves the +-inf identity: false/true.
    if constexpr (std::is_same_v<T, BoolByte>) r = r > 0.5 ? 1 : 0;
    out[i] = Elem<T>::Store(static_cast<C>(r));
  }
  return Status::Ok();
}

template class ReduceKernel<float>;
template class ReduceKernel<Float16>;
template class ReduceKernel<int32_t>;
template class ReduceKernel<int64_t>;
template class ReduceKernel<BoolByte>;

}  // namespace kiln
