// CPU executor: host memory, kernels from the registry.
#include "backends/cpu/cpu_executor.h"

#include <string>

#include "backends/host_executor.h"
#include "kernels/cpu_features.h"

namespace kiln {
namespace {

class CpuExecutor : public HostMemoryExecutor {
 public:
  // The cap is lowered to what this CPU runs, so no caller can pick an illegal instruction.
  CpuExecutor(Isa max_isa, ThreadPool* pool) : max_isa_(cpu::ClampToCpu(max_isa)), pool_(pool) {}
  std::string name() const override { return kExecutorCpu; }

  bool CanRun(const Graph& graph, const Node& node) const override {
    return KernelRegistry::Global().Find(graph, node, kExecutorCpu, max_isa_) != nullptr;
  }

  Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) override {
    const KernelFactory* f = KernelRegistry::Global().Find(graph, node, kExecutorCpu, max_isa_);
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

 private:
  Isa max_isa_;
  ThreadPool* pool_;
};

}  // namespace

std::unique_ptr<Executor> MakeCpuExecutor(Isa max_isa, ThreadPool* pool) {
  return std::make_unique<CpuExecutor>(max_isa, pool);
}

}  // namespace kiln
