// Structural and type checks on a whole graph.
#pragma once

#include "ir/graph.h"

namespace kiln {

// Checks: ids in range; every value has at most one producer; inputs defined before use
// (nodes topologically ordered, hence acyclic); graph inputs/outputs valid; every value
// used has a known dtype and shape; constants' byte sizes match dtype x shape; per-node
// dtype/shape consistency by re-running the op's inference.
Status VerifyGraph(const Graph& graph);

}  // namespace kiln
