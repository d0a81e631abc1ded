// The DSP target's declared cost model and the counters a run produces (docs/dsp-target.md);
// the command stream itself is IR (ir/dsp_program.h).
#pragma once

#include <cstdint>

#include "ir/dsp_program.h"

namespace kiln {

// The target's declared costs (docs/dsp-target.md). Cycles of a command: a fixed overhead
// plus its DMA bytes / dma_bytes_per_cycle or its MACs / macs_per_cycle (element ops count
// as elems / elems_per_cycle).
struct DspCostModel {
  int64_t macs_per_cycle = 256;
  int64_t elems_per_cycle = 64;
  int64_t dma_bytes_per_cycle = 32;
  int64_t command_overhead_cycles = 40;
  int64_t clock_mhz = 1000;  // converts cycles to an estimated time
};

// What a run (or a plan) of one node counts.
struct DspCounters {
  int64_t dma_in_bytes = 0;
  int64_t dma_out_bytes = 0;
  int64_t macs = 0;
  int64_t elem_ops = 0;  // non-MAC element work (pools, elementwise, lookups)
  int64_t commands = 0;
  int64_t dma_commands = 0;
  int64_t compute_commands = 0;
  void Add(const DspCounters& o);
};

// Cycles of the counted work, executed in order (no overlap of DMA with compute).
int64_t DspSerialCycles(const DspCounters& c, const DspCostModel& cost);

const char* DspCmdKindName(DspCmdKind k);

}  // namespace kiln
