// StridedCopy: the byte-moving core shared by Transpose, Slice, Expand, Tile and
// DepthToSpace/SpaceToDepth. Each of them is "read a strided view, write it densely".
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "ir/shape.h"
#include "ir/status.h"

namespace kiln {

class StridedCopy {
 public:
  // Deepest view rank supported after merging dims (Tile doubles the rank of its input).
  static constexpr size_t kMaxRank = 32;

  // Plans writing a dense row-major tensor of `out_shape`, elements of `elem_size` bytes,
  // where output index (i0, .., ik) reads source element
  // `src_offset + sum(i_j * src_strides[j])` (strides in elements; 0 broadcasts, negative
  // walks backwards). Called from Prepare(): it allocates.
  Status Init(const Shape& out_shape, const std::vector<int64_t>& src_strides, int64_t src_offset,
              size_t elem_size);

  // Performs the copy. No allocation; `src` and `dst` must not overlap.
  void Run(const void* src, void* dst) const;

 private:
  Shape shape_;                   // merged view dims, innermost last
  std::vector<int64_t> strides_;  // source strides of shape_, in elements
  int64_t offset_ = 0;
  size_t elem_size_ = 0;
  int64_t total_ = 0;
};

}  // namespace kiln
