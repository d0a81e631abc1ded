// Reference Split: for each outer index, consecutive input blocks go to the outputs in order.
// Output sizes come from the inferred output shapes (Split's `split` input was resolved by
// inference); unused optional outputs are skipped but still consume their block.
#include "kernels/reference/split.h"

#include <cstring>
#include <string>

#include "ir/ops/slice_params.h"

namespace kiln {

Status SplitKernel::Prepare(const KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  int64_t axis = ctx.attrs().GetInt("axis", 0);
  if (!NormalizeAxis(axis, static_cast<int64_t>(in.size()))) {
    return InvalidArgument("axis " + std::to_string(ctx.attrs().GetInt("axis", 0)) +
                           " is out of range for rank " + std::to_string(in.size()));
  }
  const size_t a = static_cast<size_t>(axis);
  outer_ = 1;
  for (size_t i = 0; i < a; ++i) outer_ *= in[i];
  int64_t inner = 1;
  for (size_t i = a + 1; i < in.size(); ++i) inner *= in[i];
  const size_t elem = DTypeSize(ctx.input(0).dtype);

  // Without the outputs' shapes (an unused output), re-derive its size from the split input
  // or the equal split, so the other outputs still land at the right offsets.
  std::vector<int64_t> sizes(ctx.num_outputs(), -1);
  int64_t known = 0, unknown = 0;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (ctx.has_output(i)) {
      sizes[i] = ctx.output(i).shape[a];
      known += sizes[i];
    } else {
      ++unknown;
    }
  }
  if (unknown > 0) {
    std::vector<int64_t> split;
    if (ctx.has_input(1)) {
      KILN_ASSIGN_OR_RETURN(split, ConstantValueInts(ctx.input(1)));
    }
    KILN_ASSIGN_OR_RETURN(sizes, ResolveSplitSizes(ctx.attrs(), ctx.has_input(1) ? &split : nullptr,
                                                   in[a], static_cast<int64_t>(sizes.size())));
    known = 0;
    for (int64_t s : sizes) known += s;
  }
  if (known != in[a]) {
    return InvalidArgument("output sizes sum to " + std::to_string(known) + " but axis " +
                           std::to_string(axis) + " has size " + std::to_string(in[a]));
  }
  block_bytes_.clear();
  for (int64_t s : sizes) {
    if (s < 0) return InvalidArgument("split has a negative size " + std::to_string(s));
    block_bytes_.push_back(static_cast<size_t>(s * inner) * elem);
  }
  return Status::Ok();
}

Status SplitKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                        void* scratch) {
  const auto* src = static_cast<const uint8_t*>(inputs[0].data);
  for (int64_t o = 0; o < outer_; ++o) {
    for (size_t i = 0; i < outputs.size(); ++i) {
      const size_t n = block_bytes_[i];
      if (n != 0 && outputs[i].data) {
        std::memcpy(static_cast<uint8_t*>(outputs[i].data) + static_cast<size_t>(o) * n, src, n);
      }
      src += n;
    }
  }
  return Status::Ok();
}

}  // namespace kiln
