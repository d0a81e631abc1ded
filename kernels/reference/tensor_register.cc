// Registers the reference kernels of the tensor op family. Those that only move bytes are
// registered for any dtype (DType::kUndefined) and copy by element size; Range, CumSum and the
// scatters (whose reductions compute) per dtype.
#include "kernels/kernel_registry.h"
#include "kernels/reference/cast_convert.h"
#include "kernels/reference/concat.h"
#include "kernels/reference/constant.h"
#include "kernels/reference/cumsum.h"
#include "kernels/reference/depth_space.h"
#include "kernels/reference/expand.h"
#include "kernels/reference/gather.h"
#include "kernels/reference/gather_elements.h"
#include "kernels/reference/gather_nd.h"
#include "kernels/reference/identity.h"
#include "kernels/reference/layout_adapter.h"
#include "kernels/reference/range.h"
#include "kernels/reference/scatter_elements.h"
#include "kernels/reference/scatter_nd.h"
#include "kernels/reference/shape_ops.h"
#include "kernels/reference/slice.h"
#include "kernels/reference/split.h"
#include "kernels/reference/tile.h"
#include "kernels/reference/transpose.h"
#include "kernels/reference/trilu.h"

namespace kiln {
namespace {

// Registers kernel template K once per stored type of Ts (bool explicitly: DTypeOf has no
// BoolByte entry).
template <template <typename> class K, typename... Ts>
void RegisterTyped(KernelRegistry& r, OpType op) {
  (RegisterKernel<K<Ts>>(r, op, DTypeOf<Ts>::value), ...);
}

}  // namespace

void RegisterReorderKernels(KernelRegistry& r);  // reorder.cc

void RegisterReferenceTensorKernels(KernelRegistry& r) {
  constexpr DType kAny = DType::kUndefined;
  RegisterReorderKernels(r);
  for (OpType op : {OpType::kIdentity, OpType::kReshape, OpType::kFlatten, OpType::kSqueeze,
                    OpType::kUnsqueeze}) {
    RegisterKernel<CopyKernel>(r, op, kAny);
  }
  RegisterKernel<DropoutKernel>(r, OpType::kDropout, kAny);
  RegisterKernel<ConcatKernel>(r, OpType::kConcat, kAny);
  // A Concat inside a blocked region (NCHW8c in and out): the same kernel on plain copies.
  RegisterKernel<NCHW8cAdapter<ConcatKernel>>(r, OpType::kConcat, DType::kF32, kExecutorCpu,
                                              Isa::kReference, Layout::kNCHW8c, AnyLayoutTraits());
  RegisterKernel<SplitKernel>(r, OpType::kSplit, kAny);
  RegisterKernel<TransposeKernel>(r, OpType::kTranspose, kAny);
  RegisterKernel<SliceKernel>(r, OpType::kSlice, kAny);
  RegisterKernel<GatherKernel>(r, OpType::kGather, kAny);
  RegisterKernel<GatherNDKernel>(r, OpType::kGatherND, kAny);
  RegisterKernel<GatherElementsKernel>(r, OpType::kGatherElements, kAny);
  RegisterKernel<TriluKernel>(r, OpType::kTrilu, kAny);
  // The scatters and CumSum combine values (reductions, sums), so they are typed.
  RegisterTyped<ScatterNDKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(
      r, OpType::kScatterND);
  RegisterKernel<ScatterNDKernel<BoolByte>>(r, OpType::kScatterND, DType::kBool);
  RegisterTyped<ScatterElementsKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(
      r, OpType::kScatterElements);
  RegisterKernel<ScatterElementsKernel<BoolByte>>(r, OpType::kScatterElements, DType::kBool);
  RegisterTyped<CumSumKernel, float, Float16, int32_t, int64_t>(r, OpType::kCumSum);
  RegisterKernel<ExpandKernel>(r, OpType::kExpand, kAny);
  RegisterKernel<TileKernel>(r, OpType::kTile, kAny);
  RegisterKernel<DepthToSpaceKernel>(r, OpType::kDepthToSpace, kAny);
  RegisterKernel<SpaceToDepthKernel>(r, OpType::kSpaceToDepth, kAny);
  RegisterKernel<ShapeKernel>(r, OpType::kShape, kAny);
  RegisterKernel<SizeKernel>(r, OpType::kSize, kAny);
  RegisterKernel<ConstantKernel>(r, OpType::kConstant, kAny);
  RegisterKernel<ConstantOfShapeKernel>(r, OpType::kConstantOfShape, kAny);
  // Range computes, so it is registered per numeric dtype.
  RegisterKernel<RangeKernel<float>>(r, OpType::kRange, DType::kF32);
  RegisterKernel<RangeKernel<int32_t>>(r, OpType::kRange, DType::kI32);
  RegisterKernel<RangeKernel<int64_t>>(r, OpType::kRange, DType::kI64);
}

}  // namespace kiln
