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
    if (__builtin_mul_overflow(strides[i + 1], shape[i + 1], &strides[i])) {
      strides[i] = kMaxElements;
    }
  }
  return strides;
}

namespace {
Status Overflow(int64_t a, const char* op, int64_t b, const std::string& what) {
  return InvalidArgument(what + ": " + std::to_string(a) + " " + op + " " + std::to_string(b) +
                         " overflows int64");
}
}  // namespace

Expected<int64_t> CheckedAdd(int64_t a, int64_t b, const std::string& what) {
  int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) return Overflow(a, "+", b, what);
  return r;
}

Expected<int64_t> CheckedSub(int64_t a, int64_t b, const std::string& what) {
  int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) return Overflow(a, "-", b, what);
  return r;
}

Expected<int64_t> CheckedMul(int64_t a, int64_t b, const std::string& what) {
  int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return Overflow(a, "*", b, what);
  return r;
}

Status CheckRange(const std::vector<int64_t>& values, int64_t lo, int64_t hi,
                  const std::string& what) {
  for (int64_t v : values) {
    if (v < lo || v > hi) {
      return InvalidArgument(what + " " + ShapeToString(values) + " must lie in [" +
                             std::to_string(lo) + ", " + std::to_string(hi) + "]");
    }
  }
  return Status::Ok();
}

bool NormalizeAxis(int64_t& axis, int64_t rank) {
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < rank;
}

}  // namespace kiln
