// StridedCopy: dense output written from a strided view of the source, with dims merged so
// the inner loop runs as long as possible.
#include "kernels/reference/transpose_strided.h"

#include <array>
#include <cstring>
#include <string>

namespace kiln {
namespace {

// Copies `n` elements of N bytes from a strided source; memcpy keeps unaligned (mapped
// constant) sources safe and compiles to a single move.
template <size_t N>
void CopyRow(const uint8_t* src, int64_t stride_bytes, uint8_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i, src += stride_bytes, dst += N) std::memcpy(dst, src, N);
}

void CopyRowAnySize(const uint8_t* src, int64_t stride_bytes, uint8_t* dst, int64_t n,
                    size_t elem) {
  switch (elem) {
    case 1:
      return CopyRow<1>(src, stride_bytes, dst, n);
    case 2:
      return CopyRow<2>(src, stride_bytes, dst, n);
    case 4:
      return CopyRow<4>(src, stride_bytes, dst, n);
    case 8:
      return CopyRow<8>(src, stride_bytes, dst, n);
    default:
      for (int64_t i = 0; i < n; ++i, src += stride_bytes, dst += elem) {
        std::memcpy(dst, src, elem);
      }
  }
}

}  // namespace

Status StridedCopy::Init(const Shape& out_shape, const std::vector<int64_t>& src_strides,
                         int64_t src_offset, size_t elem_size) {
  if (out_shape.size() != src_strides.size()) {
    return Internal("StridedCopy: " + std::to_string(out_shape.size()) + " dims but " +
                    std::to_string(src_strides.size()) + " strides");
  }
  if (elem_size == 0) return InvalidArgument("StridedCopy: element dtype has no size");
  offset_ = src_offset;
  elem_size_ = elem_size;
  total_ = NumElements(out_shape);
  shape_.clear();
  strides_.clear();
  // Size-1 dims never move the source; a dim merges into the one before it when stepping
  // the outer dim once equals stepping the inner dim across its whole extent.
  for (size_t i = 0; i < out_shape.size(); ++i) {
    if (out_shape[i] == 1) continue;
    if (!shape_.empty() && strides_.back() == src_strides[i] * out_shape[i]) {
      shape_.back() *= out_shape[i];
      strides_.back() = src_strides[i];
      continue;
    }
    shape_.push_back(out_shape[i]);
    strides_.push_back(src_strides[i]);
  }
  if (shape_.empty()) {  // a single element
    shape_.push_back(1);
    strides_.push_back(1);
  }
  if (shape_.size() > kMaxRank) {
    return Unsupported("strided copy of rank " + std::to_string(shape_.size()) +
                       " exceeds the supported " + std::to_string(kMaxRank));
  }
  return Status::Ok();
}

void StridedCopy::Run(const void* src_void, void* dst_void) const {
  if (total_ == 0) return;
  const auto* src =
      static_cast<const uint8_t*>(src_void) + offset_ * static_cast<int64_t>(elem_size_);
  auto* dst = static_cast<uint8_t*>(dst_void);
  const size_t rank = shape_.size();
  const int64_t inner = shape_[rank - 1];
  const int64_t inner_stride_bytes = strides_[rank - 1] * static_cast<int64_t>(elem_size_);
  const size_t row_bytes = static_cast<size_t>(inner) * elem_size_;
  std::array<int64_t, kMaxRank> counter{};
  const int64_t rows = total_ / inner;
  for (int64_t r = 0; r < rows; ++r) {
    if (strides_[rank - 1] == 1) {
      std::memcpy(dst, src, row_bytes);
    } else {
      CopyRowAnySize(src, inner_stride_bytes, dst, inner, elem_size_);
    }
    dst += row_bytes;
    // Odometer over the outer dims, moving `src` incrementally.
    for (size_t d = rank - 1; d-- > 0;) {
      src += strides_[d] * static_cast<int64_t>(elem_size_);
      if (++counter[d] < shape_[d]) break;
      src -= shape_[d] * strides_[d] * static_cast<int64_t>(elem_size_);
      counter[d] = 0;
    }
  }
}

}  // namespace kiln
