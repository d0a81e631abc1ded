// Stream splitting: assigns nodes to up to N streams -- the critical path on stream 0,
// independent branches on the others -- and turns cross-stream dependencies into events,
// keeping only those not already implied by others (transitive reduction).
#pragma once

#include <cstdint>

#include "ir/execution_plan.h"

namespace kiln {

struct StreamStats {
  int32_t streams_used = 1;
  int64_t cross_stream_edges = 0;  // data dependencies between streams
  int64_t events = 0;              // after transitive reduction
};

// Relative cost of each node (for the critical path): its MACs when known, else its output
// elements, never below 1.
Expected<Schedule> SplitStreams(const Graph& graph, int32_t max_streams,
                                StreamStats* stats = nullptr);

// Events for a given node -> stream assignment: one per cross-stream dependency that stream
// order and earlier events do not already imply.
std::vector<Schedule::Event> MinimalEvents(const Graph& graph, const std::vector<int32_t>& stream,
                                           int32_t num_streams, int64_t* cross_stream_edges);

}  // namespace kiln
