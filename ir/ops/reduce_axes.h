// Which dimensions a Reduce* node reduces; shared by shape inference and the kernels.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attribute.h"
#include "ir/status.h"

namespace kiln {

// Resolves the reduced dims of an input of rank `rank`. Axes come from `axes_input` when the
// node has an axes input (ReduceSum-13 style, value read from the constant) or else from the
// `axes` attribute. No axes means every dim, unless noop_with_empty_axes=1 (then none).
// Negative axes count from the end; out-of-range or repeated axes are InvalidArgument.
Expected<std::vector<bool>> ResolveReduceAxes(const Attributes& attrs,
                                              const std::vector<int64_t>* axes_input, int64_t rank);

// The output shape: reduced dims become 1 (keepdims) or are dropped.
Shape ReducedShape(const Shape& in, const std::vector<bool>& reduced, bool keepdims);

}  // namespace kiln
