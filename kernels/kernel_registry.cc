// Kernel registry lookups and the explicit list of registrations.
#include "kernels/kernel_registry.h"

namespace kiln {

const char* ExecutorKindName(ExecutorKind kind) {
  switch (kind) {
    case ExecutorKind::kCpu: return "cpu";
    case ExecutorKind::kOpenCL: return "opencl";
    case ExecutorKind::kDsp: return "dsp";
  }
  return "unknown";
}

KernelRegistry& KernelRegistry::Global() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    RegisterReferenceNnKernels(*r);
    RegisterReferenceElementwiseKernels(*r);
    RegisterReferenceTensorKernels(*r);
    RegisterCpuFastKernels(*r);
    return r;
  }();
  return *registry;
}

void KernelRegistry::Register(KernelKey key, KernelFactory factory) {
  entries_.push_back({key, std::move(factory)});
}

DType KernelRegistry::DispatchDType(const Graph& graph, const Node& node) {
  for (ValueId in : node.inputs) {
    if (in != kNoValue) return graph.value(in).dtype;
  }
  for (ValueId out : node.outputs) {
    if (out != kNoValue) return graph.value(out).dtype;
  }
  return DType::kUndefined;
}

const KernelFactory* KernelRegistry::Find(const Graph& graph, const Node& node,
                                          ExecutorKind executor, Isa max_isa) const {
  const DType dtype = DispatchDType(graph, node);
  const Layout layout =
      node.outputs.empty() || node.outputs[0] == kNoValue ? Layout::kPlain
                                                          : graph.value(node.outputs[0]).layout;
  const Entry* best = nullptr;
  auto rank = [&](const Entry& e) {
    // exact dtype beats wildcard; then higher isa
    return (e.key.dtype == dtype ? 1000 : 0) + static_cast<int>(e.key.isa);
  };
  for (const Entry& e : entries_) {
    if (e.key.op != node.op || e.key.executor != executor || e.key.layout != layout) continue;
    if (static_cast<int>(e.key.isa) > static_cast<int>(max_isa)) continue;
    if (e.key.dtype != dtype && e.key.dtype != DType::kUndefined) continue;
    if (!best || rank(e) > rank(*best)) best = &e;
  }
  return best ? &best->factory : nullptr;
}

}  // namespace kiln
