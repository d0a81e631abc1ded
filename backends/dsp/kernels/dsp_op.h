// The DSP target's ops: each quantized op the target runs plans its node's command stream for
// a scratchpad size, says which scratchpad regions a compute command touches, and computes one
// tile from scratchpad memory only (it is never given a main-memory pointer). Arithmetic is
// the integer reference kernels' (kernels/requantize.h), so results are bit-exact.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "backends/dsp/kernels/dsp_program.h"

namespace kiln {

// A scratchpad byte range a compute command reads or writes.
struct DspRegion {
  uint64_t offset = 0;
  uint64_t bytes = 0;
  bool write = false;
};

class DspOp {
 public:
  virtual ~DspOp() = default;
  // The node's command stream for a scratchpad of `scratch_bytes`; Unsupported (with the
  // reason) when no tiling fits.
  virtual Expected<DspProgram> Plan(uint32_t scratch_bytes) const = 0;
  // The scratchpad regions compute command `c` touches; an error when its tile lies outside the
  // op's geometry (a command from a file is checked with this before it ever runs).
  virtual Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const = 0;
  // Computes one tile. Reads and writes only `scratch` (the regions above).
  virtual void Compute(const DspCommand& c, uint8_t* scratch) const = 0;
  // The work of compute command `c` (macs / elem_ops), for the counters and the cost model.
  virtual DspCounters Work(const DspCommand& c) const = 0;
};

// The DSP op for `node`, or Unsupported saying why the target cannot run it (the executor's
// claim and the CPU-fallback reason `kiln inspect` prints).
Expected<std::unique_ptr<DspOp>> MakeDspOp(const Graph& graph, const Node& node);

// Why the DSP target cannot run `node` with a scratchpad of `scratch_bytes` (op, dtype, shape
// or no tiling fits), or nullopt when it can.
std::optional<std::string> DspFallbackReason(const Graph& graph, const Node& node,
                                             uint32_t scratch_bytes = kDspDefaultScratchBytes);

// The command streams of every node of `graph` the DSP target runs at `scratch_bytes` (nodes
// marked in `skip`, elided by the memory plan, and nodes the compiler placed on another
// executor excepted): what `--target dsp` writes into the model file. Nodes it cannot run are
// left out (they fall back to the CPU). With `may_fuse`, also the fused chains of convolutions
// that save estimated cycles and that `may_fuse` allows (backends/dsp/kernels/dsp_chain.h).
DspProgramSet PlanDspPrograms(
    const Graph& graph, const std::vector<bool>& skip, uint32_t scratch_bytes,
    const std::function<bool(std::span<const int32_t>)>& may_fuse = nullptr);

// Byte sizes of the node's operands, inputs first, then outputs (0 for omitted ones): what its
// program's DMA commands are checked against.
std::vector<uint64_t> DspOperandBytes(const Graph& graph, const Node& node);

}  // namespace kiln
