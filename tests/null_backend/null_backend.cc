// The null accelerator: a backend made only of this file and backend.cmake. It claims f32 Relu
// and Add, and its executor runs them with the reference kernels in host memory, counting the
// kernels it made (so a test can tell its nodes ran here and not on the CPU).
#include <atomic>

#include "backends/backend.h"
#include "backends/cost_placement.h"
#include "backends/host_executor.h"
#include "kernels/kernel_registry.h"

namespace kiln::test {
namespace {

constexpr const char* kName = "null";

std::atomic<int64_t> kernels_made{0};

bool Claims(const Graph& graph, const Node& node) {
  return (node.op == OpType::kRelu || node.op == OpType::kAdd) &&
         KernelRegistry::DispatchDType(graph, node) == DType::kF32;
}

class NullExecutor : public HostMemoryExecutor {
 public:
  std::string name() const override { return kName; }
  bool CanRun(const Graph& graph, const Node& node) const override {
    return Claims(graph, node) &&
           KernelRegistry::Global().Find(graph, node, kExecutorCpu, Isa::kReference);
  }
  Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) override {
    const KernelFactory* f =
        KernelRegistry::Global().Find(graph, node, kExecutorCpu, Isa::kReference);
    if (!Claims(graph, node) || !f)
      return Unsupported("the null backend does not run " + node.name);
    std::unique_ptr<Kernel> kernel = (*f)();
    KILN_RETURN_IF_ERROR(kernel->Prepare(KernelContext(graph, node)));
    ++kernels_made;
    return kernel;
  }
};

class NullBackend : public Backend {
 public:
  std::string_view name() const override { return kName; }
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
