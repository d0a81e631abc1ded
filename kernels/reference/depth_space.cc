// Reference DepthToSpace / SpaceToDepth as strided copies, following the ONNX definitions:
//   DCR: [N, b, b, C', H, W] -> transpose(0,3,4,1,5,2) -> [N, C', H*b, W*b]
//   CRD: [N, C', b, b, H, W] -> transpose(0,1,4,2,5,3) -> [N, C', H*b, W*b]
//   SpaceToDepth: [N, C, H', b, W', b] -> transpose(0,3,5,1,2,4) -> [N, C*b*b, H', W']
#include "kernels/reference/depth_space.h"

#include <string>

namespace kiln {
namespace {

// Strides of the permuted 6-D view: `view` is the re-viewed input shape, `perm` the ONNX
// transpose; the output (dense) is then exactly the permuted view.
Status PlanPermutedView(const Shape& view, const std::vector<size_t>& perm, size_t elem,
                        StridedCopy& copy) {
  const std::vector<int64_t> view_strides = RowMajorStrides(view);
  Shape out(perm.size());
  std::vector<int64_t> strides(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) {
    out[i] = view[perm[i]];
    strides[i] = view_strides[perm[i]];
  }
  return copy.Init(out, strides, 0, elem);
}

Expected<int64_t> ReadBlockSize(const KernelContext& ctx) {
  const int64_t b = ctx.attrs().GetInt("blocksize", 0);
  if (b <= 0) return InvalidArgument("blocksize must be positive, got " + std::to_string(b));
  if (ctx.input(0).shape.size() != 4) return InvalidArgument("input must be 4-D NCHW");
  return b;
}

}  // namespace

Status DepthToSpaceKernel::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const int64_t b, ReadBlockSize(ctx));
  const Shape& s = ctx.input(0).shape;
  if (s[1] % (b * b) != 0) return InvalidArgument("channels do not divide by blocksize^2");
  const int64_t c = s[1] / (b * b);
  const std::string mode = ctx.attrs().GetString("mode", "DCR");
  const size_t elem = DTypeSize(ctx.input(0).dtype);
  if (mode == "DCR") {
    return PlanPermutedView({s[0], b, b, c, s[2], s[3]}, {0, 3, 4, 1, 5, 2}, elem, copy_);
  }
  if (mode == "CRD") {
    return PlanPermutedView({s[0], c, b, b, s[2], s[3]}, {0, 1, 4, 2, 5, 3}, elem, copy_);
  }
  return InvalidArgument("mode must be DCR or CRD, got '" + mode + "'");
}

Status DepthToSpaceKernel::Run(std::span<const TensorView> inputs,
                               std::span<const TensorView> outputs, void* scratch) {
  copy_.Run(inputs[0].data, outputs[0].data);
  return Status::Ok();
}

Status SpaceToDepthKernel::Prepare(const KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const int64_t b, ReadBlockSize(ctx));
  const Shape& s = ctx.input(0).shape;
  if (s[2] % b != 0 || s[3] % b != 0) return InvalidArgument("H and W must divide by blocksize");
  return PlanPermutedView({s[0], s[1], s[2] / b, b, s[3] / b, b}, {0, 3, 5, 1, 2, 4},
                          DTypeSize(ctx.input(0).dtype), copy_);
}

Status SpaceToDepthKernel::Run(std::span<const TensorView> inputs,
                               std::span<const TensorView> outputs, void* scratch) {
  copy_.Run(inputs[0].data, outputs[0].data);
  return Status::Ok();
}

}  // namespace kiln
