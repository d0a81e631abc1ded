// Executors: a device (CPU, OpenCL GPU, DSP) that owns its memory and runs kernels. They only
// claim nodes; placement is decided by runtime/placement.
#pragma once

#include <memory>
#include <string>

#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"

namespace kiln {

// Memory owned by one executor. Host-domain executors hand out host pointers.
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual size_t size() const = 0;
  // The handle kernels of the owning executor receive in TensorView::data.
  virtual void* handle() = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;  // "cpu", "opencl", "dsp"
  virtual ExecutorKind kind() const = 0;
  // True when buffers are plain host memory (no copies needed to or from the host).
  virtual bool host_memory() const = 0;

  // Whether this executor has a kernel for the node (its claim).
  virtual bool CanRun(const Graph& graph, const Node& node) const = 0;
  virtual Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) = 0;

  virtual Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t bytes) = 0;
  virtual Status Upload(const void* host_src, DeviceBuffer& dst, size_t bytes) = 0;
  virtual Status Download(DeviceBuffer& src, void* host_dst, size_t bytes) = 0;

  virtual Status Execute(Kernel& kernel, std::span<const TensorView> inputs,
                         std::span<const TensorView> outputs, void* scratch) {
    return kernel.Run(inputs, outputs, scratch);
  }
  // Waits for all work queued on this executor.
  virtual Status Synchronize() { return Status::Ok(); }
};

// The CPU executor. `max_isa` caps which kernel flavours it picks (kReference = the oracle);
// its kernels split work over `pool` (the session's; may be null: everything inline).
std::unique_ptr<Executor> MakeCpuExecutor(Isa max_isa = Isa::kReference,
                                          ThreadPool* pool = nullptr);

}  // namespace kiln
