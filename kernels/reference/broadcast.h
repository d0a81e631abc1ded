// Numpy broadcasting for reference kernels: maps every output element to its element offset
// in each input. Every broadcasting op (binary, compare, logic, variadic, Where, PRelu, and
// the reductions, which broadcast the output back over the input) iterates through this.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "ir/shape.h"
#include "ir/status.h"

namespace kiln {

struct BroadcastPlan {
  // The iteration shape: the output shape with adjacent dims merged wherever every input is
  // contiguous across them (same element count as the output, usually a lower rank).
  Shape dims;
  // Per input, the element stride along each of `dims`; 0 where the input is broadcast.
  std::vector<std::vector<int64_t>> strides;
};

// Builds the plan for inputs of `in_shapes` broadcast to `out_shape`; InvalidArgument when an
// input does not broadcast to it. Call in Prepare(): it allocates.
Expected<BroadcastPlan> MakeBroadcastPlan(const Shape& out_shape,
                                          const std::vector<Shape>& in_shapes);

// Calls fn(out_index, offsets) for every output element in row-major order, where offsets[k]
// is input k's element offset. N must equal the plan's input count. No allocation: leading
// dims are decoded once per innermost row, the innermost dim advances by stride.
template <size_t N, typename Fn>
void ForEachBroadcast(const BroadcastPlan& plan, Fn&& fn) {
  const Shape& dims = plan.dims;
  const size_t rank = dims.size();
  const int64_t total = NumElements(dims);
  if (total == 0) return;
  const int64_t inner = rank ? dims[rank - 1] : 1;
  std::array<int64_t, N> inner_stride{};
  for (size_t k = 0; k < N; ++k) inner_stride[k] = rank ? plan.strides[k][rank - 1] : 0;
  int64_t out = 0;
  for (int64_t row = 0; out < total; ++row) {
    std::array<int64_t, N> off{};
    int64_t rem = row;
    for (size_t d = rank > 0 ? rank - 1 : 0; d-- > 0;) {
      const int64_t coord = rem % dims[d];
      rem /= dims[d];
      for (size_t k = 0; k < N; ++k) off[k] += coord * plan.strides[k][d];
    }
    for (int64_t i = 0; i < inner; ++i, ++out) {
      fn(out, off);
      for (size_t k = 0; k < N; ++k) off[k] += inner_stride[k];
    }
  }
}

// out[i] = op(a[ia], b[ib]) over a two-input plan.
template <typename A, typename B, typename O, typename Op>
void BroadcastBinary(const BroadcastPlan& plan, const A* a, const B* b, O* out, Op op) {
  ForEachBroadcast<2>(plan, [&](int64_t i, const std::array<int64_t, 2>& off) {
    out[i] = op(a[off[0]], b[off[1]]);
  });
}

}  // namespace kiln
