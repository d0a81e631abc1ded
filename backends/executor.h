// Executors: a backend's device (CPU, OpenCL GPU, DSP) that owns its memory and runs kernels,
// made by Backend::MakeExecutor. They only claim nodes; the session's placement decides
// (runtime/placement.h).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"

namespace kiln {

// Memory owned by one executor. Host-domain executors hand out host pointers.
class DeviceBuffer {
 public:
  virtual ~DeviceBuffer() = default;
  virtual size_t size() const = 0;
  // The handle that kernels and copies of the owning executor receive (TensorView::data) for
  // a tensor of `dtype` whose bytes start at `offset` (a host pointer on host executors; an
  // executor's own descriptor, such as an OpenCL buffer plus offset, elsewhere). Offsets and
  // sizes are those of the memory plan, in the logical dtype; an executor storing tensors
  // narrower (f32 as f16) maps them. Made at session creation, valid while the buffer lives:
  // one arena buffer serves every value placed in it.
  virtual Expected<void*> Region(size_t offset, size_t bytes, DType dtype) = 0;
};

// What the session tells an executor about one step.
struct StepContext {
  int stream = 0;         // the schedule's stream: work of one stream is ordered
  int profile_slot = -1;  // >= 0: time this step (see Executor::ProfiledMs)
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual std::string name() const = 0;  // "cpu", "opencl", "dsp"
  // True when buffers are plain host memory (no copies needed to or from the host).
  virtual bool host_memory() const = 0;
  // True when kernels read their constant inputs (weights, shapes) from the graph at prepare
  // and keep their own copies in the executor's memory (in the layout and precision they
  // compute in): the session then gives constant inputs no buffer (TensorView::data null).
  virtual bool binds_constants() const { return false; }

  // Whether this executor has a kernel for the node (its claim).
  virtual bool CanRun(const Graph& graph, const Node& node) const = 0;
  virtual Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) = 0;

  virtual Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t bytes) = 0;
  // Copies between host memory and a Region handle of this executor's memory. `bytes` is the
  // logical size. Both return once `host` may be reused (or read).
  virtual Status Upload(const void* host_src, void* dst, size_t bytes, DType dtype, int stream) = 0;
  virtual Status Download(void* src, void* host_dst, size_t bytes, DType dtype, int stream) = 0;

  // Called once before any kernel is created: how many streams and cross-stream events the
  // schedule has, and how many steps will be timed.
  virtual Status Configure(int streams, size_t events, int profile_slots) { return Status::Ok(); }
  virtual Status Execute(Kernel& kernel, std::span<const TensorView> inputs,
                         std::span<const TensorView> outputs, void* scratch,
                         const StepContext& step) {
    return kernel.Run(inputs, outputs, scratch);
  }
  // Cross-stream order for executors that queue work asynchronously (no-ops for the ones
  // that finish each step before returning). Mark: everything queued on `stream` so far
  // completes before event `event`. DeviceWait: work queued on `stream` from now on starts
  // after the event. HostWait: the calling thread blocks until the event.
  virtual Status Mark(int stream, size_t event) { return Status::Ok(); }
  virtual Status DeviceWait(int stream, size_t event) { return Status::Ok(); }
  virtual Status HostWait(size_t event) { return Status::Ok(); }
  // Waits for all work queued on this executor.
  virtual Status Synchronize() { return Status::Ok(); }
  // Device time of the step timed in `slot` during the last run (after Synchronize), for
  // executors that time their own work; nullopt: the session times the step on the host.
  virtual std::optional<double> ProfiledMs(int slot) const { return std::nullopt; }
};

}  // namespace kiln
