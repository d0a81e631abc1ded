// Placement: resolves executors' claims into one executor per node, by priority. Executors
// only claim; this is the one place that decides.
#pragma once

#include <memory>
#include <vector>

#include "runtime/executor.h"

namespace kiln {

// For each node: keeps a compiler-given placement when that executor is present and claims
// the node; otherwise the first executor in priority order that claims it. Fails naming every
// node that no executor can run. Nodes marked in `skip` (elided by the plan) are not placed.
Expected<std::vector<size_t>> PlaceNodes(const Graph& graph,
                                         const std::vector<Executor*>& executors_by_priority,
                                         const std::vector<bool>& skip = {});

}  // namespace kiln
