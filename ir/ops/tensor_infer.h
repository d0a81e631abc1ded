// Private header of the tensor op family: inference functions registered by
// tensor_schemas.cc, defined in the tensor_*_infer.cc files.
#pragma once

#include "ir/op_schema.h"

namespace kiln::tensor_infer {

// tensor_layout_infer.cc: ops that only re-view or permute one input.
Status InferReshape(InferenceContext& ctx);
Status InferFlatten(InferenceContext& ctx);
Status InferSqueeze(InferenceContext& ctx);
Status InferUnsqueeze(InferenceContext& ctx);
Status InferTranspose(InferenceContext& ctx);
Status InferDepthToSpace(InferenceContext& ctx);
Status InferSpaceToDepth(InferenceContext& ctx);

// tensor_index_infer.cc: ops that select, join or replicate elements.
Status InferConcat(InferenceContext& ctx);
Status InferSlice(InferenceContext& ctx);
Status InferSplit(InferenceContext& ctx);
Status InferGather(InferenceContext& ctx);
Status InferExpand(InferenceContext& ctx);
Status InferTile(InferenceContext& ctx);

// tensor_gather_infer.cc: gathers indexed per element.
Status InferGatherND(InferenceContext& ctx);
Status InferGatherElements(InferenceContext& ctx);
// GatherElements' and ScatterElements' indices: data's rank (at least 1), an axis inside it, no
// extent past data's off the axis, and constant index values inside the axis.
Status CheckElementIndices(InferenceContext& ctx, const Shape& data, const Shape& indices);

// tensor_scatter_infer.cc: scatters with reductions.
Status InferScatterND(InferenceContext& ctx);
Status InferScatterElements(InferenceContext& ctx);

// tensor_scan_infer.cc: shape-preserving ops with a runtime scalar input.
Status InferTrilu(InferenceContext& ctx);
Status InferCumSum(InferenceContext& ctx);

// tensor_generator_infer.cc: ops producing metadata or constants, and pass-throughs.
Status InferShape(InferenceContext& ctx);
Status InferSize(InferenceContext& ctx);
Status InferRange(InferenceContext& ctx);
Status InferConstant(InferenceContext& ctx);
Status InferConstantOfShape(InferenceContext& ctx);
Status InferIdentity(InferenceContext& ctx);
Status InferDropout(InferenceContext& ctx);

}  // namespace kiln::tensor_infer
