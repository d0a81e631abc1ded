// Placement: resolves executors' claims into one executor per node, by priority. Executors
// only claim; this is the one place that decides.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/executor.h"

namespace kiln {

// For each node: keeps a preferred placement (`preferred[n]`, e.g. from the cost-aware
// placement, else the compiler-given node.placement) when that executor is present and claims
// the node; otherwise the first executor in priority order that claims it. Fails naming every
// node that no executor can run. Nodes marked in `skip` (elided by the plan) are not placed.
Expected<std::vector<size_t>> PlaceNodes(const Graph& graph,
                                         const std::vector<Executor*>& executors_by_priority,
                                         const std::vector<bool>& skip = {},
                                         const std::vector<std::string>& preferred = {});

// "opencl 62, cpu 3": nodes per executor from Session::Placement() ("-" entries, the elided
// nodes, are not counted), executors in order of first appearance.
std::string PlacementSummary(const std::vector<std::string>& placement);

}  // namespace kiln
