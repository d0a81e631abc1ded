// Shape helpers.
#include "ir/shape.h"

namespace kiln {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return -1;
    // Saturate instead of overflowing: shapes can come from untrusted files.
    if (__builtin_mul_overflow(n, d, &n)) return kMaxElements;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ",";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

std::vector<int64_t> RowMajorStrides(const Shape& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * shape[i + 1];
  }
  return strides;
}

bool NormalizeAxis(int64_t& axis, int64_t rank) {
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < rank;
}

}  // namespace kiln
