// ConstantBytes factories.
#include "ir/constant_bytes.h"

#include <cstring>

namespace kiln {

ConstantBytes ConstantBytes::FromVector(std::vector<uint8_t> bytes) {
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  ConstantBytes c;
  c.data_ = owned->data();
  c.size_ = owned->size();
  c.owner_ = std::move(owned);
  return c;
}

ConstantBytes ConstantBytes::Copy(const void* data, size_t size) {
  std::vector<uint8_t> v(size);
  if (size) std::memcpy(v.data(), data, size);
  return FromVector(std::move(v));
}

ConstantBytes ConstantBytes::Borrow(std::shared_ptr<const void> owner, const uint8_t* data,
                                    size_t size) {
  ConstantBytes c;
  c.owner_ = std::move(owner);
  c.data_ = data;
  c.size_ = size;
  return c;
}

}  // namespace kiln
