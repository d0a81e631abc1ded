// Priority-based placement of nodes on executors.
#include "runtime/placement.h"

namespace kiln {

Expected<std::vector<size_t>> PlaceNodes(const Graph& graph,
                                         const std::vector<Executor*>& executors,
                                         const std::vector<bool>& skip) {
  std::vector<size_t> placement(graph.num_nodes(), 0);
  std::string unplaced;
  for (size_t n = 0; n < graph.num_nodes(); ++n) {
    if (n < skip.size() && skip[n]) continue;
    const Node& node = graph.node(static_cast<NodeId>(n));
    bool placed = false;
    if (!node.placement.empty()) {
      for (size_t e = 0; e < executors.size() && !placed; ++e) {
        if (executors[e]->name() == node.placement && executors[e]->CanRun(graph, node)) {
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
