// Static tensor shapes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

using Shape = std::vector<int64_t>;

// Product of dims; 1 for a scalar (empty shape).
int64_t NumElements(const Shape& shape);
// "[1,3,224,224]"
std::string ShapeToString(const Shape& shape);
// Row-major strides in elements.
std::vector<int64_t> RowMajorStrides(const Shape& shape);
// Normalises a possibly negative axis against rank; false if out of range.
bool NormalizeAxis(int64_t& axis, int64_t rank);

}  // namespace kiln
