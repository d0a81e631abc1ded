// Broadcast plans: per-input strides aligned to the output, with mergeable dims coalesced.
#include "kernels/reference/broadcast.h"

#include <string>

namespace kiln {

Expected<BroadcastPlan> MakeBroadcastPlan(const Shape& out_shape,
                                          const std::vector<Shape>& in_shapes) {
  const size_t rank = out_shape.size();
  std::vector<std::vector<int64_t>> strides;
  for (const Shape& in : in_shapes) {
    if (in.size() > rank) {
      return InvalidArgument("shape " + ShapeToString(in) + " has a higher rank than " +
                             ShapeToString(out_shape));
    }
    // Right-align the input against the output; size-1 and missing dims get stride 0.
    std::vector<int64_t> s(rank, 0);
    const size_t lead = rank - in.size();
    int64_t stride = 1;
    for (size_t d = rank; d-- > lead;) {
      const int64_t dim = in[d - lead];
      if (dim != out_shape[d] && dim != 1) {
        return InvalidArgument("shape " + ShapeToString(in) + " does not broadcast to " +
                               ShapeToString(out_shape));
      }
      s[d] = dim == 1 ? 0 : stride;
      stride *= dim;
    }
    strides.push_back(std::move(s));
  }

  // Merge dim d into d+1 when, for every input, stepping d equals stepping d+1 across its
  // whole extent (both broadcast, or contiguous). This turns e.g. a per-channel bias over
  // NCHW into a 3-D walk with a long innermost row.
  BroadcastPlan plan;
  plan.strides.resize(strides.size());
  for (size_t d = 0; d < rank; ++d) {
    if (out_shape[d] == 1) continue;  // a size-1 dim never moves any offset
    bool merge = !plan.dims.empty();
    for (size_t k = 0; merge && k < strides.size(); ++k) {
      merge = plan.strides[k].back() == strides[k][d] * out_shape[d];
    }
    if (merge) {
      plan.dims.back() *= out_shape[d];
      for (size_t k = 0; k < strides.size(); ++k) plan.strides[k].back() = strides[k][d];
    } else {
      plan.dims.push_back(out_shape[d]);
      for (size_t k = 0; k < strides.size(); ++k) plan.strides[k].push_back(strides[k][d]);
    }
  }
  return plan;
}

}  // namespace kiln
