// The DSP target's command stream for one node: DMA-in, compute and DMA-out commands over a
// scratchpad (docs/dsp-target.md). Plain data shared by the compiler, which writes it into the
// model file (section 8), the loader and the runtime, which validates and executes it.
#pragma once

#include <cstdint>
#include <map>
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
// scratchpad offsets of the tile's operands. The target has two engines, DMA and compute, each
// running its commands in program order; a command also waits for command `dep` (an earlier
// one), or with `dep` -1 for every earlier command. So DMA overlaps compute only where the
// program says so (double buffering); the instrumented mode checks that no two commands that
// may overlap touch the same scratchpad bytes with a write.
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

// The commands of one node, planned for a scratchpad of `scratch_bytes`. A fused chain's
// program also lists its member nodes (consecutive node indices, the chain's last node last):
// its operands are every member's inputs, member after member, then the last member's outputs;
// compute command c runs member c.tile[5]. Empty for a single node's program.
struct DspProgram {
  uint32_t scratch_bytes = kDspDefaultScratchBytes;
  std::vector<DspCommand> commands;
  std::vector<int32_t> members;
};

// The compiled command streams of a model (the model file's DSP section): one per node, by
// node index, and the fused chains by their last node. Every chain member also has its own
// program, which runs when the chain cannot (a reader that predates chains, a member placed
// elsewhere).
struct DspProgramSet {
  std::map<int32_t, DspProgram> by_node;
  std::map<int32_t, DspProgram> chains;
};

}  // namespace kiln
