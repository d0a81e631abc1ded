// Static tensor shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

using Shape = std::vector<int64_t>;

// Returned by NumElements when the product overflows int64.
inline constexpr int64_t kMaxElements = INT64_MAX;

// Product of dims; 1 for a scalar (empty shape); -1 if a dim is negative; kMaxElements when
// the product overflows.
int64_t NumElements(const Shape& shape);
// "[1,3,224,224]"
std::string ShapeToString(const Shape& shape);
// Row-major strides in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape);
// Normalises a possibly negative axis against rank; false if out of range.
bool NormalizeAxis(int64_t& axis, int64_t rank);

}  // namespace kiln
