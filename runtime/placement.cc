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
