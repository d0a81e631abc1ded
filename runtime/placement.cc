// Priority-based placement of nodes on executors.
#include "runtime/placement.h"

#include <algorithm>

namespace kiln {

Expected<std::vector<size_t>> PlaceNodes(const Graph& graph,
                                         const std::vector<Executor*>& executors,
                                         const std::vector<bool>& skip,
                                         const std::vector<std::string>& preferred) {
  std::vector<size_t> placement(graph.num_nodes(), 0);
  std::string unplaced;
  for (size_t n = 0; n < graph.num_nodes(); ++n) {
    if (n < skip.size() && skip[n]) continue;
    const Node& node = graph.node(static_cast<NodeId>(n));
    bool placed = false;
    const std::string& want =
        n < preferred.size() && preferred[n] != "-" ? preferred[n] : node.placement;
    if (!want.empty()) {
      for (size_t e = 0; e < executors.size() && !placed; ++e) {
        if (executors[e]->name() == want && executors[e]->CanRun(graph, node)) {
          placement[n] = e;
          placed = true;
        }
      }
    }
    for (size_t e = 0; e < executors.size() && !placed; ++e) {
      if (executors[e]->CanRun(graph, node)) {
        placement[n] = e;
        placed = true;
      }
    }
    if (!placed) {
      unplaced += (unplaced.empty() ? "" : "; ") + std::string(OpTypeName(node.op)) + " (" +
                  std::string(DTypeName(KernelRegistry::DispatchDType(graph, node))) +
                  ") at node '" + node.name + "'";
    }
  }
  if (!unplaced.empty()) return Unsupported("no executor has a kernel for: " + unplaced);
  return placement;
}

}  // namespace kiln

namespace kiln {

std::optional<std::string> GpuFallbackReason(const Graph& graph, const Node& node) {
  const KernelRegistry& r = KernelRegistry::Global();
  if (r.FindEntry(graph, node, ExecutorKind::kOpenCL, Isa::kOpenCL)) return std::nullopt;
  const std::string op(OpTypeName(node.op));
  bool any = false, dtype_ok = false;
  const DType dtype = KernelRegistry::DispatchDType(graph, node);
  for (const auto& e : r.entries()) {
    if (e.key.op != node.op || e.key.executor != ExecutorKind::kOpenCL) continue;
    any = true;
    dtype_ok = dtype_ok || e.key.dtype == dtype || e.key.dtype == DType::kUndefined;
  }
  if (!any) {
    return r.entries().empty() || !HasOpenClKernels() ? "this runtime has no OpenCL kernels"
                                                      : "no OpenCL kernel for " + op;
  }
  if (!dtype_ok) {
    return "no OpenCL " + op + " kernel for " + std::string(DTypeName(dtype)) +
           " (the GPU kernels compute f32)";
  }
  for (ValueId v : node.outputs) {
    if (v != kNoValue && graph.value(v).dtype != DType::kF32) {
      return "output '" + graph.value(v).name + "' is " +
             std::string(DTypeName(graph.value(v).dtype)) + " (GPU memory holds f32 tensors)";
    }
  }
  for (ValueId v : node.inputs) {
    if (v != kNoValue && !graph.value(v).is_constant() && graph.value(v).dtype != DType::kF32) {
      return "input '" + graph.value(v).name + "' is " +
             std::string(DTypeName(graph.value(v).dtype)) + " (GPU memory holds f32 tensors)";
    }
  }
  return "the OpenCL " + op + " kernels do not handle this node's shapes or attributes";
}

std::string PlacementSummary(const std::vector<std::string>& placement) {
  std::vector<std::pair<std::string, int>> counts;
  for (const std::string& p : placement) {
    if (p == "-") continue;
    auto it = std::find_if(counts.begin(), counts.end(), [&](auto& c) { return c.first == p; });
    if (it == counts.end()) {
      counts.emplace_back(p, 1);
    } else {
      ++it->second;
    }
  }
  std::string out;
  for (const auto& [name, n] : counts)
    out += (out.empty() ? "" : ", ") + name + " " + std::to_string(n);
  return out;
}

}  // namespace kiln
