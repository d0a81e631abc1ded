// Reduce* axes resolution (attribute or constant input, negative axes, noop_with_empty_axes).
#include "ir/ops/reduce_axes.h"

#include <string>

namespace kiln {

Expected<std::vector<bool>> ResolveReduceAxes(const Attributes& attrs,
                                              const std::vector<int64_t>* axes_input,
                                              int64_t rank) {
  const std::vector<int64_t> axes = axes_input ? *axes_input : attrs.GetInts("axes");
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  if (axes.empty()) {
    // opset-13 ReduceSum: an empty axes list with noop_with_empty_axes=1 reduces nothing.
    if (attrs.GetInt("noop_with_empty_axes", 0) == 0) reduced.assign(reduced.size(), true);
    return reduced;
  }
  for (int64_t axis : axes) {
    int64_t a = axis;
    if (!NormalizeAxis(a, rank)) {
      return InvalidArgument("reduce axis " + std::to_string(axis) + " is out of range for rank " +
                             std::to_string(rank));
    }
    if (reduced[static_cast<size_t>(a)]) {
      return InvalidArgument("reduce axis " + std::to_string(axis) + " is repeated");
    }
    reduced[static_cast<size_t>(a)] = true;
  }
  return reduced;
}

Shape ReducedShape(const Shape& in, const std::vector<bool>& reduced, bool keepdims) {
  Shape out;
  for (size_t d = 0; d < in.size(); ++d) {
    if (!reduced[d]) {
      out.push_back(in[d]);
    } else if (keepdims) {
      out.push_back(1);
    }
  }
  return out;
}

}  // namespace kiln
