// The null accelerator: a backend made only of this file and backend.cmake. It claims f32 Relu
// and Add, and its executor runs them with the reference kernels in host memory, counting the
// kernels it made (so a test can tell its nodes ran here and not on the CPU).
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "backends/backend.h"
#include "backends/cost_placement.h"
#include "kernels/kernel_registry.h"

namespace kiln::test {
namespace {

constexpr const char* kName = "null";

std::atomic<int64_t> kernels_made{0};

class NullBuffer : public DeviceBuffer {
 public:
  explicit NullBuffer(size_t size) : bytes_((size + 63) / 64 + 1), size_(size) {}
  size_t size() const override { return size_; }
  Expected<void*> Region(size_t offset, size_t bytes, DType) override {
    if (offset > size_ || bytes > size_ - offset) return Internal("region outside the buffer");
    return static_cast<void*>(reinterpret_cast<uint8_t*>(bytes_.data()) + offset);
  }

 private:
  struct alignas(64) Line {
    uint8_t b[64];
  };
  std::vector<Line> bytes_;
  size_t size_;
};

bool Claims(const Graph& graph, const Node& node) {
  return (node.op == OpType::kRelu || node.op == OpType::kAdd) &&
         KernelRegistry::DispatchDType(graph, node) == DType::kF32;
}

class NullExecutor : public Executor {
 public:
  std::string name() const override { return kName; }
  ExecutorKind kind() const override { return ExecutorKind::kCpu; }  // reference CPU kernels
  bool host_memory() const override { return true; }
  bool CanRun(const Graph& graph, const Node& node) const override {
    return Claims(graph, node) &&
           KernelRegistry::Global().Find(graph, node, ExecutorKind::kCpu, Isa::kReference);
  }
  Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) override {
    const KernelFactory* f =
        KernelRegistry::Global().Find(graph, node, ExecutorKind::kCpu, Isa::kReference);
    if (!Claims(graph, node) || !f)
      return Unsupported("the null backend does not run " + node.name);
    std::unique_ptr<Kernel> kernel = (*f)();
    KILN_RETURN_IF_ERROR(kernel->Prepare(KernelContext(graph, node)));
    ++kernels_made;
    return kernel;
  }
  Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t bytes) override {
    return std::unique_ptr<DeviceBuffer>(std::make_unique<NullBuffer>(bytes));
  }
  Status Upload(const void* src, void* dst, size_t bytes, DType, int) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }
  Status Download(void* src, void* dst, size_t bytes, DType, int) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }
};

class NullBackend : public Backend {
 public:
  std::string_view name() const override { return kName; }
  ExecutorKind kernel_kind() const override { return ExecutorKind::kCpu; }
  NodeClaim Claim(const Graph& graph, const Node& node, const BackendOptions&) const override {
    if (!Claims(graph, node))
      return NodeClaim::Refused("the null backend runs f32 Relu and Add only");
    return NodeClaim::Claimed(EstimateNodeWork(graph, node).elems / 1e6);
  }
  Expected<std::unique_ptr<Executor>> MakeExecutor(const ExecutorRequest& r) const override {
    if (!r.device.empty()) return InvalidArgument("executor '" + r.requested + "': no devices");
    return std::unique_ptr<Executor>(std::make_unique<NullExecutor>());
  }
};

}  // namespace

int64_t NullBackendKernelsMade() { return kernels_made.load(); }

std::unique_ptr<Backend> MakeNullBackend() { return std::make_unique<NullBackend>(); }

}  // namespace kiln::test
