// ConstantBytes factories.
#include "ir/constant_bytes.h"

#include <sys/mman.h>

#include <cstring>
#include <new>

namespace kiln {
namespace {

// As in model files (serializer's kTensorAlignment): kernels bind weights in place and load
// them as whole vectors, so a graph compiled in memory keeps them 64-byte aligned too (heap
// vectors are 16-byte aligned: every 16-float weight load split a cache line, 5-8 % of
// resnet18_rw's convolutions when `kiln bench` compiled the .onnx itself).
constexpr size_t kAlignment = 64;
constexpr size_t kMapBytes = 256 * 1024;

struct AlignedDelete {
  void operator()(uint8_t* p) const { ::operator delete[](p, std::align_val_t(kAlignment)); }
};

}  // namespace

ConstantBytes ConstantBytes::FromVector(std::vector<uint8_t> bytes) {
  if (reinterpret_cast<uintptr_t>(bytes.data()) % kAlignment != 0) {
    return Copy(bytes.data(), bytes.size());
  }
  auto owned = std::make_shared<std::vector<uint8_t>>(std::move(bytes));
  ConstantBytes c;
  c.data_ = owned->data();
  c.size_ = owned->size();
  c.owner_ = std::move(owned);
  return c;
}

ConstantBytes ConstantBytes::Copy(const void* data, size_t size) {
  std::shared_ptr<uint8_t> owned;
  if (size >= kMapBytes) {
    // Large constants in their own pages (page-aligned, returned to the system when freed):
    // through the heap, a copy of every packed weight next to the vector it came from left
    // the heap 8.8 MB larger for mobilenetv2 (glibc raises its mmap threshold on each free).
    void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    owned.reset(static_cast<uint8_t*>(p), [size](uint8_t* q) { ::munmap(q, size); });
  } else {
    owned.reset(
        static_cast<uint8_t*>(::operator new[](size ? size : 1, std::align_val_t(kAlignment))),
        AlignedDelete{});
  }
  if (size) std::memcpy(owned.get(), data, size);
  ConstantBytes c;
  c.data_ = owned.get();
  c.size_ = size;
  c.owner_ = std::move(owned);
  return c;
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
