// Reference ScatterND: out = data; for each tuple t, out[idx[t], :] (op)= updates[t, :].
// Negative indices count from the end; an index outside its dim fails the run with the value,
// never writes out of bounds. Duplicate tuples apply in order (the last wins for none).
#include "kernels/reference/scatter_nd.h"

#include <cstring>
#include <string>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/scatter_reduce.h"

namespace kiln {
namespace {

template <typename T, ScatterReduction R>
void CombineSlice(T* dst, const T* src, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    dst[i] = Elem<T>::Store(ScatterCombine<R>(Elem<T>::Load(dst[i]), Elem<T>::Load(src[i])));
  }
}

}  // namespace

template <typename T>
Status ScatterNDKernel<T>::Prepare(const KernelContext& ctx) {
  // Shapes and the reduction name were checked by the schema (InferScatterND).
  const Shape& data = ctx.input(0).shape;
  const Shape& indices = ctx.input(1).shape;
  const DType it = ctx.input(1).dtype;
  if (it != DType::kI32 && it != DType::kI64) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(it)));
  }
  indices_i64_ = it == DType::kI64;
  KILN_ASSIGN_OR_RETURN(const ScatterReduction r, ReadScatterReduction(ctx.attrs()));
  switch (r) {
    case ScatterReduction::kNone:
      combine_ = CombineSlice<T, ScatterReduction::kNone>;
      break;
    case ScatterReduction::kAdd:
      combine_ = CombineSlice<T, ScatterReduction::kAdd>;
      break;
    case ScatterReduction::kMul:
      combine_ = CombineSlice<T, ScatterReduction::kMul>;
      break;
    case ScatterReduction::kMax:
      combine_ = CombineSlice<T, ScatterReduction::kMax>;
      break;
    case ScatterReduction::kMin:
      combine_ = CombineSlice<T, ScatterReduction::kMin>;
      break;
  }
  const size_t k = static_cast<size_t>(indices.back());
  tuples_ = 1;
  for (size_t d = 0; d + 1 < indices.size(); ++d) tuples_ *= indices[d];
  dims_.assign(data.begin(), data.begin() + static_cast<std::ptrdiff_t>(k));
  strides_.assign(k, 1);
  for (size_t j = k; j-- > 1;) strides_[j - 1] = strides_[j] * dims_[j];
  slice_ = 1;
  for (size_t d = k; d < data.size(); ++d) slice_ *= data[d];
  return Status::Ok();
}

template <typename T>
Status ScatterNDKernel<T>::Run(std::span<const TensorView> inputs,
                               std::span<const TensorView> outputs, void*) {
  T* out = outputs[0].as<T>();
  const T* updates = inputs[2].as<const T>();
  const size_t bytes = static_cast<size_t>(outputs[0].num_elements()) * sizeof(T);
  if (bytes && out != inputs[0].data) std::memcpy(out, inputs[0].data, bytes);
  const size_t k = dims_.size();
  const auto* idx64 = inputs[1].as<const int64_t>();
  const auto* idx32 = inputs[1].as<const int32_t>();
  size_t pos = 0;
  for (int64_t t = 0; t < tuples_; ++t) {
    int64_t offset = 0;  // in slices
    for (size_t j = 0; j < k; ++j, ++pos) {
      int64_t i = indices_i64_ ? idx64[pos] : idx32[pos];
      if (i < -dims_[j] || i >= dims_[j]) {
        return InvalidArgument("ScatterND index " + std::to_string(i) + " (tuple " +
                               std::to_string(t) + ", position " + std::to_string(j) +
                               ") is out of range for a dim of size " + std::to_string(dims_[j]));
      }
      if (i < 0) i += dims_[j];
      offset += i * strides_[j];
    }
    combine_(out + offset * slice_, updates + t * slice_, slice_);
  }
  return Status::Ok();
}

template class ScatterNDKernel<float>;
template class ScatterNDKernel<Float16>;
template class ScatterNDKernel<int8_t>;
template class ScatterNDKernel<uint8_t>;
template class ScatterNDKernel<int32_t>;
template class ScatterNDKernel<int64_t>;
template class ScatterNDKernel<BoolByte>;

}  // namespace kiln
