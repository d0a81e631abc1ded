// The rules of memory sharing, used alike by the compiler's planner (which proposes aliases)
// and by ValidateExecutionPlan (which proves a plan safe): which ops may write over an input,
// which are pure views, when a Concat's inputs can be written into its output, and how the
// aliases of a plan group values into buffers.
#pragma once

#include <optional>
#include <vector>

#include "ir/execution_plan.h"
#include "ir/happens_before.h"

namespace kiln {

inline constexpr int32_t kMaxStreams = 16;

// Reshape-like ops whose output has exactly the input's bytes.
bool IsViewOp(OpType op);
// The input slot whose buffer the node's output may take over (same dtype and shape, read
// element by element before the same element is written), or nullopt. Every kernel of such an
// op must tolerate that aliasing: docs/compiler.md states the contract.
std::optional<size_t> InPlaceSlot(const Graph& graph, const Node& node);
// A Concat whose inputs are contiguous slices of its output: every axis before `axis` has
// extent 1, and the inputs are distinct.
bool IsSliceableConcat(const Graph& graph, const Node& node);
// Byte offset of each Concat input inside the output (when IsSliceableConcat).
std::vector<uint64_t> ConcatSliceOffsets(const Graph& graph, const Node& node);

// Values sharing memory through a plan's aliases, as one buffer.
struct BufferGroups {
  std::vector<int32_t> group_of;             // by value id; -1 for values not in the arena
  std::vector<std::vector<ValueId>> members;  // by group
  std::vector<uint64_t> begin, end;          // byte range of each group
  std::vector<std::vector<NodeId>> writes;   // non-elided producers of the members
  std::vector<std::vector<NodeId>> accesses; // writes plus non-elided readers
  std::vector<bool> elided;                  // by node id
};

// Checks the plan's vectors, bounds, alignment and the shape of every alias and elided node,
// then groups the values.
Expected<BufferGroups> GroupBuffers(const Graph& graph, const MemoryPlan& plan);
// The arena is no larger than its furthest planned value, rounded up to the slot alignment
// (after GroupBuffers has checked the offsets): a file cannot make the runtime allocate what no
// value uses.
Status CheckArenaSize(const Graph& graph, const MemoryPlan& plan);
// In-place writers run after every other reader of what they overwrite; views and Concat
// slices take part in no other alias.
Status CheckAliasRules(const Graph& graph, const MemoryPlan& plan, const HappensBefore& hb,
                       const BufferGroups& groups);
// Groups whose byte ranges overlap are ordered: one's accesses all happen before the other's
// writes.
Status CheckNoOverlap(const Graph& graph, const MemoryPlan& plan, const HappensBefore& hb,
                      const BufferGroups& groups);
// Whether every access of group `a` happens before every write of group `b`.
bool GroupBefore(const BufferGroups& groups, const HappensBefore& hb, size_t num_nodes,
                 int32_t a, int32_t b);

}  // namespace kiln
