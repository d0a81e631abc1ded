// The DSP target's command stream for one node: DMA-in, compute and DMA-out commands over a
// scratchpad, the target's declared cost model and the counters a run produces
// (docs/dsp-target.md). Plain data: the compiler writes it into the model file (section 8),
// the runtime validates and executes it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace kiln {

inline constexpr uint32_t kDspDefaultScratchBytes = 256 * 1024;
inline constexpr uint32_t kDspMinScratchBytes = 4 * 1024;
inline constexpr uint32_t kDspMaxScratchBytes = 64 * 1024 * 1024;

enum class DspCmdKind : uint8_t { kDmaIn = 0, kDmaOut = 1, kCompute = 2 };

// One command. DMA commands copy a 2-D block: `rows` rows of `row_bytes`, row r at
// main_offset + r * main_stride of node operand `operand` (inputs first, then outputs) and at
// scratch_offset + r * scratch_stride of the scratchpad. Compute commands run the node's op on
// one tile: `tile` holds the op's tile coordinates (dsp_op.h says per op), `buf` the
// scratchpad offsets of the tile's operands. `dep` is the earlier command this one waits for
// (-1: none besides program order), which the cost model uses to overlap DMA with compute.
struct DspCommand {
  DspCmdKind kind = DspCmdKind::kCompute;
  uint8_t operand = 0;
  uint32_t rows = 0;
  uint32_t row_bytes = 0;
  uint32_t scratch_offset = 0;
  uint32_t scratch_stride = 0;
  uint64_t main_offset = 0;
  uint64_t main_stride = 0;
  int32_t dep = -1;
  int64_t tile[6] = {0, 0, 0, 0, 0, 0};
  uint32_t buf[8] = {0, 0, 0, 0, 0, 0, 0, 0};
};

// The commands of one node, planned for a scratchpad of `scratch_bytes`.
struct DspProgram {
  uint32_t scratch_bytes = kDspDefaultScratchBytes;
  std::vector<DspCommand> commands;
};

// The compiled command streams of a model, by node index (the model file's DSP section).
struct DspProgramSet {
  std::map<int32_t, DspProgram> by_node;
};

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
