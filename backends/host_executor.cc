// Host buffers and host copies for HostMemoryExecutor.
#include "backends/host_executor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

namespace kiln {
namespace {

constexpr size_t kAlignment = 64;

class HostBuffer : public DeviceBuffer {
 public:
  explicit HostBuffer(size_t size) : size_(size) {
    // A size within kAlignment of SIZE_MAX would wrap when rounded up: no buffer (valid() is
    // false) rather than a small one that Region() would treat as huge.
    if (size > std::numeric_limits<size_t>::max() - kAlignment) return;
    const size_t rounded = (size + kAlignment - 1) / kAlignment * kAlignment;
    data_ = std::aligned_alloc(kAlignment, rounded == 0 ? kAlignment : rounded);
  }
  ~HostBuffer() override { std::free(data_); }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  bool valid() const { return data_ != nullptr; }
  size_t size() const override { return size_; }
  Expected<void*> Region(size_t offset, size_t bytes, DType) override {
    if (offset > size_ || bytes > size_ - offset) {
      return Internal("region [" + std::to_string(offset) + ", +" + std::to_string(bytes) +
                      ") outside a " + std::to_string(size_) + "-byte host buffer");
    }
    return static_cast<void*>(static_cast<uint8_t*>(data_) + offset);
  }

 private:
  size_t size_;
  void* data_ = nullptr;
};

}  // namespace

Expected<std::unique_ptr<DeviceBuffer>> HostMemoryExecutor::Allocate(size_t bytes) {
  auto buf = std::make_unique<HostBuffer>(bytes);
  if (!buf->valid()) return Internal("out of host memory allocating " + std::to_string(bytes));
  return std::unique_ptr<DeviceBuffer>(std::move(buf));
}

Status HostMemoryExecutor::Upload(const void* src, void* dst, size_t bytes, DType, int) {
  if (bytes) std::memcpy(dst, src, bytes);
  return Status::Ok();
}

Status HostMemoryExecutor::Download(void* src, void* dst, size_t bytes, DType, int) {
  if (bytes) std::memcpy(dst, src, bytes);
  return Status::Ok();
}

}  // namespace kiln
