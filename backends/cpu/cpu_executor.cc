// CPU executor: host memory, kernels from the registry.
#include "backends/cpu/cpu_executor.h"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>

#include "kernels/cpu_features.h"

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

class CpuExecutor : public Executor {
 public:
  // The cap is lowered to what this CPU runs, so no caller can pick an illegal instruction.
  CpuExecutor(Isa max_isa, ThreadPool* pool) : max_isa_(cpu::ClampToCpu(max_isa)), pool_(pool) {}
  std::string name() const override { return kExecutorCpu; }
  ExecutorKind kind() const override { return ExecutorKind::kCpu; }
  bool host_memory() const override { return true; }

  bool CanRun(const Graph& graph, const Node& node) const override {
    return KernelRegistry::Global().Find(graph, node, ExecutorKind::kCpu, max_isa_) != nullptr;
  }

  Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) override {
    const KernelFactory* f =
        KernelRegistry::Global().Find(graph, node, ExecutorKind::kCpu, max_isa_);
    if (!f) {
      return Unsupported("no cpu kernel for " + std::string(OpTypeName(node.op)) + " (" +
                         std::string(DTypeName(KernelRegistry::DispatchDType(graph, node))) +
                         ") at node '" + node.name + "'");
    }
    std::unique_ptr<Kernel> kernel = (*f)();
    KILN_RETURN_IF_ERROR(
        kernel->Prepare(KernelContext(graph, node, pool_)).WithContext(DescribeNode(node)));
    return kernel;
  }

  Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t bytes) override {
    auto buf = std::make_unique<HostBuffer>(bytes);
    if (!buf->valid()) return Internal("out of host memory allocating " + std::to_string(bytes));
    return std::unique_ptr<DeviceBuffer>(std::move(buf));
  }
  Status Upload(const void* src, void* dst, size_t bytes, DType, int) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }
  Status Download(void* src, void* dst, size_t bytes, DType, int) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }

 private:
  Isa max_isa_;
  ThreadPool* pool_;
};

}  // namespace

std::unique_ptr<Executor> MakeCpuExecutor(Isa max_isa, ThreadPool* pool) {
  return std::make_unique<CpuExecutor>(max_isa, pool);
}

}  // namespace kiln
