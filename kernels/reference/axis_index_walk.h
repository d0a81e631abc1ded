// The element walk GatherElements and ScatterElements share: every element of an index tensor
// in order, with the offset of the data element it addresses (its own position off the axis,
// its index value on the axis).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "ir/shape.h"
#include "ir/status.h"

namespace kiln {

// Calls fn(e, offset) for each element e of `idx` (shape `index_shape`, row-major), where offset
// is the data offset at e's position with the axis coordinate replaced by idx[e] (negative
// values count from the end). An index outside [-axis_dim, axis_dim) stops the walk with an
// error naming `op`. `pos` is the caller's scratch (index_shape.size() entries): the walk
// allocates nothing.
template <typename I, typename Fn>
Status WalkAxisIndices(const char* op, const I* idx, const std::vector<int64_t>& index_shape,
                       const std::vector<int64_t>& data_strides, size_t axis, int64_t axis_dim,
                       std::vector<int64_t>& pos, Fn&& fn) {
  const size_t rank = index_shape.size();
  int64_t n = 1;
  for (int64_t d : index_shape) n *= d;
  if (n == 0) return Status::Ok();
  // Odometer over the index position; `base` is its data offset without the axis term.
  std::fill(pos.begin(), pos.end(), 0);
  int64_t base = 0;
  const int64_t axis_stride = data_strides[axis];
  for (int64_t e = 0; e < n; ++e) {
    int64_t i = static_cast<int64_t>(idx[e]);
    if (i < -axis_dim || i >= axis_dim) {
      return InvalidArgument(std::string(op) + " index " + std::to_string(i) + " (element " +
                             std::to_string(e) + ") is out of range for axis " +
                             std::to_string(axis) + " of size " + std::to_string(axis_dim));
    }
    if (i < 0) i += axis_dim;
    fn(e, base + i * axis_stride);
    for (size_t d = rank; d-- > 0;) {
      if (++pos[d] < index_shape[d]) {
        if (d != axis) base += data_strides[d];
        break;
      }
      if (d != axis) base -= (index_shape[d] - 1) * data_strides[d];
      pos[d] = 0;
    }
  }
  return Status::Ok();
}

// What the walk needs, made at prepare from the data and index shapes and the `axis`
// attribute (the schema has checked both), so that a run allocates nothing.
struct AxisIndexGeometry {
  size_t axis = 0;
  int64_t axis_dim = 0;
  std::vector<int64_t> index_shape;
  std::vector<int64_t> data_strides;
  std::vector<int64_t> pos;  // the walk's position in the indices

  Status Init(int64_t axis_attr, const Shape& data, const Shape& indices) {
    int64_t a = axis_attr;
    if (!NormalizeAxis(a, static_cast<int64_t>(data.size()))) {
      return InvalidArgument("axis " + std::to_string(axis_attr) + " is out of range for rank " +
                             std::to_string(data.size()));
    }
    axis = static_cast<size_t>(a);
    axis_dim = data[axis];
    index_shape = indices;
    pos.assign(index_shape.size(), 0);
    data_strides.assign(data.size(), 1);
    for (size_t d = data.size(); d-- > 1;) data_strides[d - 1] = data_strides[d] * data[d];
    return Status::Ok();
  }

  template <typename I, typename Fn>
  Status Walk(const char* op, const I* idx, Fn&& fn) {
    return WalkAxisIndices(op, idx, index_shape, data_strides, axis, axis_dim, pos, fn);
  }
};

}  // namespace kiln
