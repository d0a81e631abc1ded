// Reference Slice: the output reads the input from the resolved starts with step-scaled
// strides (negative steps walk backwards).
#include "kernels/reference/slice.h"

#include "ir/ops/slice_params.h"

namespace kiln {

Status SliceKernel::Prepare(const KernelContext& ctx) {
  const Value& in = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> starts, ConstantValueInts(ctx.input(1)));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> ends, ConstantValueInts(ctx.input(2)));
  std::vector<int64_t> axes, steps;
  if (ctx.has_input(3)) {
    KILN_ASSIGN_OR_RETURN(axes, ConstantValueInts(ctx.input(3)));
  }
  if (ctx.has_input(4)) {
    KILN_ASSIGN_OR_RETURN(steps, ConstantValueInts(ctx.input(4)));
  }
  KILN_ASSIGN_OR_RETURN(SliceParams p, ResolveSlice(in.shape, starts, ends, axes, steps));
  if (p.out_shape != ctx.output(0).shape) {
    return Internal("slice output shape " + ShapeToString(p.out_shape) +
                    " differs from the inferred " + ShapeToString(ctx.output(0).shape));
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(in.shape);
  std::vector<int64_t> strides(in_strides.size());
  int64_t offset = 0;
  for (size_t i = 0; i < strides.size(); ++i) {
    strides[i] = in_strides[i] * p.step[i];
    offset += p.start[i] * in_strides[i];
  }
  return copy_.Init(p.out_shape, strides, offset, DTypeSize(in.dtype));
}

Status SliceKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                        void* scratch) {
  copy_.Run(inputs[0].data, outputs[0].data);
  return Status::Ok();
}

}  // namespace kiln
