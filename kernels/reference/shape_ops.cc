// Reference Shape and Size: shapes are static, so the values are fixed in Prepare() and Run()
// only writes them out.
#include "kernels/reference/shape_ops.h"

#include <cstring>

#include "ir/ops/slice_params.h"

namespace kiln {

Status ShapeKernel::Prepare(const KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  int64_t first = 0, last = 0;
  ResolveShapeRange(ctx.attrs(), static_cast<int64_t>(in.size()), &first, &last);
  dims_.assign(in.begin() + first, in.begin() + last);
  if (ctx.output(0).dtype != DType::kI64 || ctx.output(0).num_elements() != last - first) {
    return Internal("Shape output must be i64 with " + std::to_string(last - first) + " elements");
  }
  return Status::Ok();
}

Status ShapeKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                        void* scratch) {
  if (!dims_.empty()) std::memcpy(outputs[0].data, dims_.data(), dims_.size() * sizeof(int64_t));
  return Status::Ok();
}

Status SizeKernel::Prepare(const KernelContext& ctx) {
  if (ctx.output(0).dtype != DType::kI64 || ctx.output(0).num_elements() != 1) {
    return Internal("Size output must be an i64 scalar");
  }
  size_ = ctx.input(0).num_elements();
  return Status::Ok();
}

Status SizeKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                       void* scratch) {
  std::memcpy(outputs[0].data, &size_, sizeof(size_));
  return Status::Ok();
}

}  // namespace kiln
