// Reference ScatterElements: out = data; out[i_0, ..., indices[i...], ..., i_r-1] (op)=
// updates[i...] in element order (the index replaces the axis coordinate). Negative indices
// count from the end; one outside the axis fails the run, never writes out of bounds.
#include "kernels/reference/scatter_elements.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "kernels/reference/cast_convert.h"

namespace kiln {

template <typename T>
template <typename I, ScatterReduction R>
Status ScatterElementsKernel<T>::Scatter(ScatterElementsKernel& k, const void* indices,
                                         const T* updates, T* out) {
  const I* idx = static_cast<const I*>(indices);
  return k.geo_.Walk("ScatterElements", idx, [&](int64_t e, int64_t offset) {
    T& dst = out[offset];
    dst = Elem<T>::Store(ScatterCombine<R>(Elem<T>::Load(dst), Elem<T>::Load(updates[e])));
  });
}

template <typename T>
template <typename I>
typename ScatterElementsKernel<T>::ScatterFn ScatterElementsKernel<T>::Pick(ScatterReduction r) {
  switch (r) {
    case ScatterReduction::kNone:
      return Scatter<I, ScatterReduction::kNone>;
    case ScatterReduction::kAdd:
      return Scatter<I, ScatterReduction::kAdd>;
    case ScatterReduction::kMul:
      return Scatter<I, ScatterReduction::kMul>;
    case ScatterReduction::kMax:
      return Scatter<I, ScatterReduction::kMax>;
    case ScatterReduction::kMin:
      return Scatter<I, ScatterReduction::kMin>;
  }
  return nullptr;
}

template <typename T>
Status ScatterElementsKernel<T>::Prepare(const KernelContext& ctx) {
  // Ranks, shapes, axis and the reduction name were checked by the schema.
  const Shape& data = ctx.input(0).shape;
  const DType it = ctx.input(1).dtype;
  if (it != DType::kI32 && it != DType::kI64) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(it)));
  }
  KILN_RETURN_IF_ERROR(geo_.Init(ctx.attrs().GetInt("axis", 0), data, ctx.input(1).shape));
  KILN_ASSIGN_OR_RETURN(const ScatterReduction r, ReadScatterReduction(ctx.attrs()));
  fn_ = it == DType::kI64 ? Pick<int64_t>(r) : Pick<int32_t>(r);
  return Status::Ok();
}

template <typename T>
Status ScatterElementsKernel<T>::Run(std::span<const TensorView> inputs,
                                     std::span<const TensorView> outputs, void*) {
  T* out = outputs[0].as<T>();
  const size_t bytes = static_cast<size_t>(outputs[0].num_elements()) * sizeof(T);
  if (bytes && out != inputs[0].data) std::memcpy(out, inputs[0].data, bytes);
  return fn_(*this, inputs[1].data, inputs[2].as<const T>(), out);
}

template class ScatterElementsKernel<float>;
template class ScatterElementsKernel<Float16>;
template class ScatterElementsKernel<int8_t>;
template class ScatterElementsKernel<uint8_t>;
template class ScatterElementsKernel<int32_t>;
template class ScatterElementsKernel<int64_t>;
template class ScatterElementsKernel<BoolByte>;

}  // namespace kiln
