// Reference Gather: out[o, j, :] = data[o, indices[j], :], negative indices counting from the
// end; an out-of-range index fails the run rather than reading out of bounds.
#include "kernels/reference/gather.h"

#include <cstring>
#include <string>

namespace kiln {

Status GatherKernel::Prepare(const KernelContext& ctx) {
  const Shape& data = ctx.input(0).shape;
  const DType it = ctx.input(1).dtype;
  if (it != DType::kI32 && it != DType::kI64) {
    return InvalidArgument("indices must be i32 or i64, got " + std::string(DTypeName(it)));
  }
  indices_i64_ = it == DType::kI64;
  int64_t axis = ctx.attrs().GetInt("axis", 0);
  if (!NormalizeAxis(axis, static_cast<int64_t>(data.size()))) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", 0)) +
                           " is out of range for rank " + std::to_string(data.size()));
  }
  const size_t a = static_cast<size_t>(axis);
  outer_ = 1;
  for (size_t i = 0; i < a; ++i) outer_ *= data[i];
  int64_t inner = 1;
  for (size_t i = a + 1; i < data.size(); ++i) inner *= data[i];
  axis_dim_ = data[a];
  num_indices_ = ctx.input(1).num_elements();
  block_bytes_ = static_cast<size_t>(inner) * DTypeSize(ctx.input(0).dtype);
  return Status::Ok();
}

Status GatherKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                         void* scratch) {
  const auto* src = static_cast<const uint8_t*>(inputs[0].data);
  auto* dst = static_cast<uint8_t*>(outputs[0].data);
  const size_t axis_bytes = static_cast<size_t>(axis_dim_) * block_bytes_;
  for (int64_t o = 0; o < outer_; ++o) {
    const uint8_t* base = src + static_cast<size_t>(o) * axis_bytes;
    for (int64_t j = 0; j < num_indices_; ++j) {
      int64_t idx =
          indices_i64_ ? inputs[1].as<const int64_t>()[j] : inputs[1].as<const int32_t>()[j];
      if (idx < -axis_dim_ || idx >= axis_dim_) {
        return InvalidArgument("gather index " + std::to_string(idx) +
                               " is out of range for an axis of size " + std::to_string(axis_dim_));
      }
      if (idx < 0) idx += axis_dim_;
      if (block_bytes_)
        std::memcpy(dst, base + static_cast<size_t>(idx) * block_bytes_, block_bytes_);
      dst += block_bytes_;
    }
  }
  return Status::Ok();
}

}  // namespace kiln
