// Reference Expand: numpy broadcasting as a strided copy with zero strides on the
// broadcast dims (the input is right-aligned against the output).
#include "kernels/reference/expand.h"

namespace kiln {

Status ExpandKernel::Prepare(const KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const Shape& out = ctx.output(0).shape;
  if (in.size() > out.size()) return Internal("expand output rank below input rank");
  const size_t lead = out.size() - in.size();
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  std::vector<int64_t> strides(out.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == out[lead + i]) {
      strides[lead + i] = in_strides[i];
    } else if (in[i] != 1) {
      return InvalidArgument("input " + ShapeToString(in) + " does not broadcast to " +
                             ShapeToString(out));
    }
  }
  return copy_.Init(out, strides, 0, DTypeSize(ctx.input(0).dtype));
}

Status ExpandKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                         void* scratch) {
  copy_.Run(inputs[0].data, outputs[0].data);
  return Status::Ok();
}

}  // namespace kiln
