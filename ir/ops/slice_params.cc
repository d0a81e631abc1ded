// ONNX Slice / Shape-15 range normalisation and integer constant reading.
#include "ir/ops/slice_params.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace kiln {

Expected<std::vector<int64_t>> ConstantValueInts(const Value& value) {
  if (!value.constant) {
    return InvalidArgument("value '" + value.name + "' must be a constant: Kiln shapes are static");
  }
  const size_t n = static_cast<size_t>(value.num_elements());
  if (value.constant->size() < n * DTypeSize(value.dtype)) {
    return InvalidArgument("constant '" + value.name + "' holds fewer bytes than its shape needs");
  }
  std::vector<int64_t> out(n);
  if (value.dtype == DType::kI64) {
    if (n) std::memcpy(out.data(), value.constant->data(), n * sizeof(int64_t));
  } else if (value.dtype == DType::kI32) {
    const int32_t* p = value.constant->as<int32_t>();
    for (size_t k = 0; k < n; ++k) out[k] = p[k];
  } else {
    return InvalidArgument("constant '" + value.name + "' must be i32 or i64, got " +
                           std::string(DTypeName(value.dtype)));
  }
  return out;
}

Expected<SliceParams> ResolveSlice(const Shape& in_shape, const std::vector<int64_t>& starts,
                                   const std::vector<int64_t>& ends,
                                   const std::vector<int64_t>& axes,
                                   const std::vector<int64_t>& steps) {
  const int64_t rank = static_cast<int64_t>(in_shape.size());
  if (starts.size() != ends.size()) {
    return InvalidArgument("starts has " + std::to_string(starts.size()) +
                           " elements but ends has " + std::to_string(ends.size()));
  }
  if (!axes.empty() && axes.size() != starts.size()) {
    return InvalidArgument("axes has " + std::to_string(axes.size()) + " elements but starts has " +
                           std::to_string(starts.size()));
  }
  if (!steps.empty() && steps.size() != starts.size()) {
    return InvalidArgument("steps has " + std::to_string(steps.size()) +
                           " elements but starts has " + std::to_string(starts.size()));
  }
  if (axes.empty() && static_cast<int64_t>(starts.size()) > rank) {
    return InvalidArgument("starts has more elements than the input rank " + std::to_string(rank));
  }
  // Untouched dims keep start 0, step 1 and their full size.
  SliceParams p;
  p.start.assign(in_shape.size(), 0);
  p.step.assign(in_shape.size(), 1);
  p.out_shape = in_shape;
  std::vector<bool> seen(in_shape.size(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    int64_t axis = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    if (!NormalizeAxis(axis, rank)) {
      return InvalidArgument("slice axis " + std::to_string(axes.empty() ? i : axes[i]) +
                             " is out of range for rank " + std::to_string(rank));
    }
    const size_t a = static_cast<size_t>(axis);
    if (seen[a]) return InvalidArgument("slice axis " + std::to_string(axis) + " is repeated");
    seen[a] = true;
    const int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) return InvalidArgument("slice step for axis " + std::to_string(axis) + " is 0");
    const int64_t dim = in_shape[a];
    // Starts/ends may be INT64_MIN/MAX sentinels: only add `dim` to negatives (no overflow).
    int64_t start = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t end = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t count = 0;
    if (step > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      // Written as 1 + (n - 1) / step so huge steps cannot overflow.
      if (end > start) count = 1 + (end - start - 1) / step;
    } else if (dim > 0) {  // (clamp's bounds would cross for an empty axis)
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      // Dividing by the negative step itself avoids negating INT64_MIN.
      if (start > end) count = 1 - (start - end - 1) / step;
    }
    p.start[a] = count > 0 ? start : 0;
    p.step[a] = step;
    p.out_shape[a] = count;
  }
  return p;
}

Expected<std::vector<int64_t>> ResolveSplitSizes(const Attributes& attrs,
                                                 const std::vector<int64_t>* split, int64_t dim,
                                                 int64_t n) {
  const std::string where = "axis of size " + std::to_string(dim);
  if (split) {
    if (attrs.Has("num_outputs")) {
      return InvalidArgument("split and num_outputs are mutually exclusive");
    }
    if (static_cast<int64_t>(split->size()) != n) {
      return InvalidArgument("split has " + std::to_string(split->size()) +
                             " entries but the node has " + std::to_string(n) + " outputs");
    }
    int64_t sum = 0;
    for (int64_t s : *split) {
      if (s < 0) return InvalidArgument("split has a negative size " + std::to_string(s));
      KILN_ASSIGN_OR_RETURN(sum, CheckedAdd(sum, s, "split sizes"));
    }
    if (sum != dim) {
      return InvalidArgument("split sizes sum to " + std::to_string(sum) + " but the " + where);
    }
    return *split;
  }
  if (n <= 0) return InvalidArgument("Split needs at least one output");
  if (attrs.Has("num_outputs")) {
    const int64_t k = attrs.GetInt("num_outputs", 0);
    if (k != n) {
      return InvalidArgument("num_outputs " + std::to_string(k) + " differs from the node's " +
                             std::to_string(n) + " outputs");
    }
    const int64_t chunk = dim / n + (dim % n != 0);
    const int64_t last = dim - chunk * (n - 1);
    if (last < 0) {
      return InvalidArgument("num_outputs " + std::to_string(n) + " leaves the last output of an " +
                             where + " with no room (chunks of " + std::to_string(chunk) + ")");
    }
    std::vector<int64_t> sizes(static_cast<size_t>(n), chunk);
    sizes.back() = last;
    return sizes;
  }
  if (dim % n != 0) {
    return InvalidArgument("an " + where + " does not split evenly into " + std::to_string(n) +
                           " outputs");
  }
  return std::vector<int64_t>(static_cast<size_t>(n), dim / n);
}

void ResolveShapeRange(const Attributes& attrs, int64_t rank, int64_t* first, int64_t* last) {
  int64_t start = attrs.GetInt("start", 0);
  int64_t end = attrs.GetInt("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  *first = std::clamp<int64_t>(start, 0, rank);
  *last = std::max(*first, std::clamp<int64_t>(end, 0, rank));
}

}  // namespace kiln
