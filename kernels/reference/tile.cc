// Reference Tile: output dim i of size r*d is viewed as [r, d] (row-major), where the
// repeat index r does not move the source (stride 0) and d walks input dim i.
#include "kernels/reference/tile.h"

namespace kiln {

Status TileKernel::Prepare(const KernelContext& ctx) {
  const Shape& in = ctx.input(0).shape;
  const Shape& out = ctx.output(0).shape;
  if (in.size() != out.size()) return Internal("tile output rank differs from input rank");
  const std::vector<int64_t> in_strides = RowMajorStrides(in);
  Shape view;
  std::vector<int64_t> strides;
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i] == 0) {  // empty input: the output is empty too, nothing is read
      view.push_back(0);
      strides.push_back(0);
      continue;
    }
    if (out[i] % in[i] != 0) return Internal("tile output dim is not a multiple of the input");
    view.push_back(out[i] / in[i]);
    strides.push_back(0);
    view.push_back(in[i]);
    strides.push_back(in_strides[i]);
  }
  return copy_.Init(view, strides, 0, DTypeSize(ctx.input(0).dtype));
}

Status TileKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                       void* scratch) {
  copy_.Run(inputs[0].data, outputs[0].data);
  return Status::Ok();
}

}  // namespace kiln
