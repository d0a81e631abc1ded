// Reference Transpose: output dim i walks input dim perm[i].
#include "kernels/reference/transpose.h"

#include <string>

namespace kiln {

Status TransposeKernel::Prepare(const KernelContext& ctx) {
  const Value& in = ctx.input(0);
  const int64_t rank = static_cast<int64_t>(in.shape.size());
  std::vector<int64_t> perm = ctx.attrs().GetInts("perm");
  if (!ctx.attrs().Has("perm")) {
    for (int64_t i = rank - 1; i >= 0; --i) perm.push_back(i);
  }
  if (static_cast<int64_t>(perm.size()) != rank) {
    return InvalidArgument("perm has " + std::to_string(perm.size()) + " entries for rank " +
                           std::to_string(rank));
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape);
  std::vector<int64_t> strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] < 0 || perm[i] >= rank) return InvalidArgument("perm entry out of range");
    strides[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  return copy_.Init(ctx.output(0).shape, strides, 0, DTypeSize(in.dtype));
}

Status TransposeKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                            void* scratch) {
  copy_.Run(inputs[0].data, outputs[0].data);
  return Status::Ok();
}

}  // namespace kiln
