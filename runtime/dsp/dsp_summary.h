// Per-inference totals of the DSP executor in a session: DMA bytes against the minimum
// traffic, MACs, commands and the cost model's cycle estimate (kiln bench --device dsp).
#pragma once

#include <cstdint>

#include "runtime/session.h"

namespace kiln {

struct DspTraffic {
  int64_t nodes = 0;                 // nodes the DSP ran
  DspCounters per_inference;         // counted by the engine, averaged over the runs so far
  int64_t weight_bytes = 0;          // constant operands of the DSP nodes, once
  int64_t boundary_bytes = 0;        // activations entering or leaving the DSP nodes, once each
  int64_t minimum_bytes = 0;         // weight_bytes + boundary_bytes: every byte crosses once
  int64_t per_node_floor_bytes = 0;  // each DSP node's operands once (no fusion, perfect tiling)
  int64_t serial_cycles = 0;         // DspSerialCycles of every DSP node, summed
  // Activations passed from one DSP node to its only reader, also on the DSP: fusing each such
  // pair (the intermediate tile kept in the scratchpad) would save at least twice these bytes
  // of DMA. An estimate from the graph, not a fused execution (the executor does not fuse).
  int64_t fusible_bytes = 0;
};

// Zeroes when the session has no DSP executor or it ran nothing.
DspTraffic SummarizeDspTraffic(const Session& session);

}  // namespace kiln
