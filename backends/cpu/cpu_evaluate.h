// Runs a small graph on the host with the reference CPU kernels and no Session (no plan, arena,
// executors or threads): what the compiler evaluates offline with (constant folding, lookup
// tables of quantized activations).
#pragma once

#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace kiln {

// `graph`'s nodes in order (it must be topologically sorted), fed `inputs` in graph-input order;
// returns the graph outputs. Every value gets its own buffer.
Expected<std::vector<HostTensor>> EvaluateOnCpu(const Graph& graph,
                                                const std::vector<HostTensor>& inputs);

}  // namespace kiln
