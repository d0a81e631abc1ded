// Static tensor shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/status.h"

namespace kiln {

using Shape = std::vector<int64_t>;

// Returned by NumElements when the product overflows int64.
inline constexpr int64_t kMaxElements = INT64_MAX;

// Limits of shape arithmetic. Shapes and the attributes that enter shape arithmetic (pads,
// strides, dilations, kernel extents, repeats, sizes, block sizes, group, ...) come from
// untrusted files, so inference never lets int64 overflow (that is undefined behaviour):
// - every dim of every value is at most kMaxDim (2^40), whatever its other dims;
// - every tensor holds at most kMaxTensorBytes (2^40) bytes, i.e. 2^37 elements of 8 bytes;
// - window attributes (kernel, strides, dilations, pads, output_padding, output_shape) and
//   other per-axis factors are at most kMaxDim too;
// - any intermediate result that would still leave int64 is refused (Checked* below).
// Inference refuses larger values with InvalidArgument naming the attribute.
inline constexpr int64_t kMaxDim = int64_t{1} << 40;
inline constexpr int64_t kMaxTensorBytes = int64_t{1} << 40;

// a + b, a - b, a * b; InvalidArgument naming `what` when the exact result leaves int64.
Expected<int64_t> CheckedAdd(int64_t a, int64_t b, const std::string& what);
Expected<int64_t> CheckedSub(int64_t a, int64_t b, const std::string& what);
Expected<int64_t> CheckedMul(int64_t a, int64_t b, const std::string& what);
// Every entry of `values` within [lo, hi]; InvalidArgument naming `what` otherwise.
Status CheckRange(const std::vector<int64_t>& values, int64_t lo, int64_t hi,
                  const std::string& what);

// Product of dims; 1 for a scalar (empty shape); -1 if a dim is negative; kMaxElements when
// the product overflows.
int64_t NumElements(const Shape& shape);
// "[1,3,224,224]"
std::string ShapeToString(const Shape& shape);
// Row-major strides in elements (saturating at kMaxElements: a shape with a zero dim may have
// a product of the other dims beyond int64, and then no stride is ever used).
std::vector<int64_t> RowMajorStrides(const Shape& shape);
// Normalises a possibly negative axis against rank; false if out of range.
bool NormalizeAxis(int64_t& axis, int64_t rank);

}  // namespace kiln
