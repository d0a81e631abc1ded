// Fused chains of DSP convolutions: consecutive QConv nodes, each reading the previous one's
// output (which nothing else reads) as its input, run as one command stream whose
// intermediate tiles never leave the scratchpad. Tiled by rows of the last member's output:
// each member computes, for all its channels, the rows the next member's windows read (halo
// rows recomputed by neighbouring tiles), so member k's output tile is member k+1's input slab
// byte for byte and each member's own Compute runs unchanged (bit-exact by construction).
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "backends/dsp/kernels/dsp_conv.h"

namespace kiln {

// The longest chain the planner considers (weights of every member stay resident).
inline constexpr size_t kDspMaxChainLength = 4;

// Whether node `b` can follow node `a` in a chain: both QConvs the target runs, b's data input
// is a's only output, 8-bit, read by b alone (in no other slot) and no graph output.
bool DspChainLink(const Graph& graph, NodeId a, NodeId b);

class DspChainOp : public DspOp {
 public:
  // Plans the row tiling (and single or double buffers) with the fewest estimated cycles.
  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override;
  // Compute command c is member c.tile[5]'s; the member checks its own tile.
  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override;
  void Compute(const DspCommand& c, uint8_t* scratch) const override;
  DspCounters Work(const DspCommand& c) const override;

  // Operands: as DspChainOperands; the last member's outputs follow all inputs, from
  // num_inputs().
  size_t num_inputs() const { return num_inputs_; }

 private:
  friend Expected<std::unique_ptr<DspChainOp>> MakeDspChain(const Graph& graph,
                                                            std::span<const int32_t> members);
  // The program for row tiles of `th` output rows of the last member, double-buffered or not;
  // Unsupported when its working set does not fit or a member would compute no rows.
  Expected<DspProgram> Emit(uint32_t scratch_bytes, int64_t th, bool double_buffer) const;

  std::vector<std::unique_ptr<DspConv>> convs_;
  std::vector<size_t> base_;
  size_t num_inputs_ = 0;
};

// The chain op of `members` (consecutive node indices, each linked to the next by
// DspChainLink, batch 1); Unsupported saying why they do not form a chain.
Expected<std::unique_ptr<DspChainOp>> MakeDspChain(const Graph& graph,
                                                   std::span<const int32_t> members);

// A chain's operands, in DspChainOp's operand layout: every member's inputs, member after
// member, then the last member's outputs (kNoValue for omitted ones).
std::vector<ValueId> DspChainOperands(const Graph& graph, std::span<const int32_t> members);
// Their byte sizes (0 for omitted ones).
std::vector<uint64_t> DspChainOperandBytes(const Graph& graph, std::span<const int32_t> members);
// The operands (indices into DspChainOperands) the chain's earlier members read, not counting
// the intermediates (a member's data input, the previous member's output). A fused chain
// reads them when its last member runs, so its output must not share memory with them: the
// compiler keeps them apart in the memory plan, and the executor checks before each run.
std::vector<size_t> DspChainEarlyInputs(const Graph& graph, std::span<const int32_t> members);

// Chooses the chains to fuse among the nodes that have programs in `set` (consecutive linked
// QConvs; at most kDspMaxChainLength each): splits every maximal run of links into the
// segments with the fewest estimated cycles (single nodes' programs against the fused chain's),
// and adds each chosen chain's program to set->chains. `may_fuse` vetoes a chain (the memory
// plan must keep the chain's inputs apart from its output until its last member runs).
void AddDspChains(const Graph& graph, uint32_t scratch_bytes,
                  const std::function<bool(std::span<const int32_t>)>& may_fuse,
                  DspProgramSet* set);

// Estimated cycles of running `set`: every chain's program, and the own program of every node
// in no chain.
int64_t DspProgramSetCycles(const Graph& graph, const DspProgramSet& set);

}  // namespace kiln
