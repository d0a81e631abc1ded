// Reference Concat: for each outer index, the inputs' blocks are appended in order.
#include "kernels/reference/concat.h"

#include <cstring>
#include <string>

namespace kiln {

Status ConcatKernel::Prepare(const KernelContext& ctx) {
  const Shape& out = ctx.output(0).shape;
  int64_t axis = ctx.attrs().GetInt("axis", 0);
  if (!NormalizeAxis(axis, static_cast<int64_t>(out.size()))) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", 0)) +
                           " is out of range for rank " + std::to_string(out.size()));
  }
  outer_ = 1;
  for (int64_t i = 0; i < axis; ++i) outer_ *= out[static_cast<size_t>(i)];
  block_bytes_.clear();
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return InvalidArgument("input " + std::to_string(i) + " is missing");
    const Value& in = ctx.input(i);
    if (in.shape.size() != out.size() || in.dtype != ctx.output(0).dtype) {
      return InvalidArgument("input " + std::to_string(i) + " does not match the output");
    }
    int64_t block = 1;
    for (size_t d = static_cast<size_t>(axis); d < in.shape.size(); ++d) block *= in.shape[d];
    block_bytes_.push_back(static_cast<size_t>(block) * DTypeSize(in.dtype));
  }
  return Status::Ok();
}

Status ConcatKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                         void* scratch) {
  auto* dst = static_cast<uint8_t*>(outputs[0].data);
  for (int64_t o = 0; o < outer_; ++o) {
    for (size_t i = 0; i < inputs.size(); ++i) {
      const size_t n = block_bytes_[i];
      if (n == 0) continue;
      std::memcpy(dst, static_cast<const uint8_t*>(inputs[i].data) + static_cast<size_t>(o) * n, n);
      dst += n;
    }
  }
  return Status::Ok();
}

}  // namespace kiln
