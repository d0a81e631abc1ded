// The base of executors whose memory is the host's (the CPU, the DSP that reaches host memory
// by DMA, test backends): 64-byte aligned host buffers, and copies that are plain memcpy.
#pragma once

#include <memory>

#include "backends/executor.h"

namespace kiln {

class HostMemoryExecutor : public Executor {
 public:
  bool host_memory() const override { return true; }
  // A 64-byte aligned host buffer.
  Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t bytes) override;
  Status Upload(const void* host_src, void* dst, size_t bytes, DType, int) override;
  Status Download(void* src, void* host_dst, size_t bytes, DType, int) override;
};

}  // namespace kiln
