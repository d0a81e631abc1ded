// Read-only bytes of a constant tensor, owned (64-byte aligned, as in model files) or borrowed
// from a mapped file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kiln {

class ConstantBytes {
 public:
  ConstantBytes() = default;
  // Takes ownership of the bytes.
  static ConstantBytes FromVector(std::vector<uint8_t> bytes);
  static ConstantBytes Copy(const void* data, size_t size);
  // Borrows `data`; `owner` keeps it alive (e.g. a file mapping). No copy.
  static ConstantBytes Borrow(std::shared_ptr<const void> owner, const uint8_t* data, size_t size);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  template <typename T>
  const T* as() const { return reinterpret_cast<const T*>(data_); }

 private:
  std::shared_ptr<const void> owner_;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kiln
