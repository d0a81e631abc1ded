// Pass: shape propagation and constant folding over a freshly imported graph.
#pragma once

#include <cstdint>

#include "ir/graph.h"

namespace kiln {

struct FoldConstantsStats {
  int64_t nodes_inferred = 0;
  int64_t nodes_folded = 0;   // evaluated at compile time, outputs now constants
  int64_t nodes_removed = 0;  // folded or dead nodes dropped in the end
};

// Walks nodes in topological order: runs the op's schema inference (InferNode) on each, and
// when every present input is constant (or the op is Shape/Size, whose input shape is
// static), evaluates it with the CPU reference kernels and turns its outputs into constants.
// Dead nodes and values are dropped at the end; graph outputs that became constants stay
// graph outputs. A node that cannot be evaluated (no kernel yet) is kept for run time.
Status PropagateShapesAndFold(Graph& graph, FoldConstantsStats* stats = nullptr);

// Whether every present input of `node` is a constant.
bool AllInputsConstant(const Graph& g, const Node& node);

// Runs `node`, whose present inputs are all constants, alone on the CPU reference executor and
// returns its outputs' bytes (in output order, absent outputs skipped).
Expected<std::vector<ConstantBytes>> EvaluateConstantNode(const Graph& g, const Node& node);

}  // namespace kiln
