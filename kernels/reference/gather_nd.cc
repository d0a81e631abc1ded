// Reference GatherND: out[b, t, :] = data[b, idx[b, t, 0], ..., idx[b, t, k-1], :] over the
// batch dims b and index tuples t. Negative indices count from the end; an index outside its
// dim fails the run with the offending value, never reads out of bounds.
#include "kernels/reference/gather_nd.h"

#include <cstring>
#include <string>

namespace kiln {

Status GatherNDKernel::Prepare(const KernelContext& ctx) {
  // Shapes, batch_dims and k were checked by the schema (InferGatherND).
  const Shape& data = ctx.input(0).shape;
  const Shape& indices = ctx.input(1).shape;
  const DType it = ctx.input(1).dtype;
  if (it != DType::kI32 && it != DType::kI64) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(it)));
  }
  indices_i64_ = it == DType::kI64;
  const size_t b = static_cast<size_t>(ctx.attrs().GetInt("batch_dims", 0));
  const size_t k = static_cast<size_t>(indices.back());
  batches_ = 1;
  for (size_t d = 0; d < b; ++d) batches_ *= data[d];
  tuples_ = 1;
  for (size_t d = b; d + 1 < indices.size(); ++d) tuples_ *= indices[d];
  dims_.assign(data.begin() + static_cast<std::ptrdiff_t>(b),
               data.begin() + static_cast<std::ptrdiff_t>(b + k));
  strides_.assign(k, 1);
  for (size_t j = k; j-- > 1;) strides_[j - 1] = strides_[j] * dims_[j];
  batch_slices_ = k ? strides_[0] * dims_[0] : 1;
  int64_t slice = 1;
  for (size_t d = b + k; d < data.size(); ++d) slice *= data[d];
  slice_bytes_ = static_cast<size_t>(slice) * DTypeSize(ctx.input(0).dtype);
  return Status::Ok();
}

Status GatherNDKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                           void*) {
  const auto* src = static_cast<const uint8_t*>(inputs[0].data);
  auto* dst = static_cast<uint8_t*>(outputs[0].data);
  const size_t k = dims_.size();
  const auto* idx64 = inputs[1].as<const int64_t>();
  const auto* idx32 = inputs[1].as<const int32_t>();
  size_t pos = 0;  // next index element
  for (int64_t batch = 0; batch < batches_; ++batch) {
    const uint8_t* base = src + static_cast<size_t>(batch * batch_slices_) * slice_bytes_;
    for (int64_t t = 0; t < tuples_; ++t) {
      int64_t offset = 0;  // in slices
      for (size_t j = 0; j < k; ++j, ++pos) {
        int64_t i = indices_i64_ ? idx64[pos] : idx32[pos];
        if (i < -dims_[j] || i >= dims_[j]) {
          return InvalidArgument("GatherND index " + std::to_string(i) + " (tuple " +
                                 std::to_string(batch * tuples_ + t) + ", position " +
                                 std::to_string(j) + ") is out of range for a dim of size " +
                                 std::to_string(dims_[j]));
        }
        if (i < 0) i += dims_[j];
        offset += i * strides_[j];
      }
      if (slice_bytes_)
        std::memcpy(dst, base + static_cast<size_t>(offset) * slice_bytes_, slice_bytes_);
      dst += slice_bytes_;
    }
  }
  return Status::Ok();
}

}  // namespace kiln
