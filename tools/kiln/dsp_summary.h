// Per-inference totals of the DSP executor in a session: DMA bytes against the minimum
// traffic, MACs, commands and the cost model's cycle estimate (kiln bench --device dsp).
#pragma once

#include <cstdint>

#include "backends/dsp/kernels/dsp_program.h"
#include "runtime/session.h"

namespace kiln {

struct DspTraffic {
  int64_t nodes = 0;                 // nodes the DSP ran
  DspCounters per_inference;         // counted by the engine, averaged over the runs so far
  int64_t weight_bytes = 0;          // constant operands of the DSP nodes, once
  int64_t boundary_bytes = 0;        // activations entering or leaving the DSP nodes, once each
  int64_t minimum_bytes = 0;         // weight_bytes + boundary_bytes: every byte crosses once
  int64_t per_node_floor_bytes = 0;  // each DSP node's operands once (no fusion, perfect tiling)
  int64_t serial_cycles = 0;         // DspSerialCycles of every DSP node, summed (no overlap)
  int64_t estimated_cycles = 0;      // DspProgramCycles of every DSP node (DMA overlapping compute)
  // Fused chains the executor ran (backends/dsp/kernels/dsp_chain.h), their nodes, and the bytes of the
  // intermediates they kept in the scratchpad.
  int64_t chains = 0;
  int64_t chained_nodes = 0;
  int64_t fused_bytes = 0;
  // Activations still passed through main memory from one DSP node to its only reader, also on
  // the DSP (outside any fused chain): fusing each such pair would save at most twice these
  // bytes of DMA. An estimate from the graph.
  int64_t fusible_bytes = 0;
};

// Zeroes when the session has no DSP executor or it ran nothing.
DspTraffic SummarizeDspTraffic(const Session& session);

}  // namespace kiln
