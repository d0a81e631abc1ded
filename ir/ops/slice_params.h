// Shared by tensor-op inference and kernels: ONNX Slice and Shape-15 range normalisation, Split
// sizes, plus a reader for integer constant values.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace kiln {

// Reads an i32/i64 constant value as int64s; InvalidArgument (naming the value) otherwise.
Expected<std::vector<int64_t>> ConstantValueInts(const Value& value);

// A slice resolved against a concrete input shape: for every input dim, the first index read,
// the step (possibly negative) and the resulting output dim.
struct SliceParams {
  std::vector<int64_t> start;
  std::vector<int64_t> step;
  Shape out_shape;
};

// ONNX Slice-13 semantics: negative starts/ends count from the end, out-of-range values are
// clamped ([0, dim] for positive steps, [-1, dim-1] for negative ones), axes default to
// 0..n-1 and may be negative, steps default to 1 and must be non-zero. `axes`/`steps` empty
// means "absent".
Expected<SliceParams> ResolveSlice(const Shape& in_shape, const std::vector<int64_t>& starts,
                                   const std::vector<int64_t>& ends,
                                   const std::vector<int64_t>& axes,
                                   const std::vector<int64_t>& steps);

// Split's output extents along its axis of extent `dim`, for `n` outputs: the `split` input
// (Split-13+, `split` non-null), else the `num_outputs` attribute (Split-18: ceil(dim / n)
// each, the last one smaller; it must equal n), else an even split.
Expected<std::vector<int64_t>> ResolveSplitSizes(const Attributes& attrs,
                                                 const std::vector<int64_t>* split, int64_t dim,
                                                 int64_t n);

// Shape-15's slice of the input shape: start/end attributes (negative counts from the end,
// clamped to [0, rank]) resolved into [*first, *last); *last >= *first.
void ResolveShapeRange(const Attributes& attrs, int64_t rank, int64_t* first, int64_t* last);

}  // namespace kiln
