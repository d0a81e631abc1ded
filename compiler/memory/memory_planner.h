// The memory planner: decides which values share memory (in place, views, Concat slices) and
// where every activation lives in the arena, by greedy-by-size best-fit placement over
// lifetimes taken from the schedule's happens-before order (so values on concurrent streams
// never share bytes). Reads only the graph and the schedule: testable on synthetic graphs.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "ir/execution_plan.h"

namespace kiln {

struct MemoryPlannerOptions {
  bool inplace = true;       // elementwise ops and FusedConv's residual write over an input
  bool views = true;         // Reshape-like ops share their input's buffer and are elided
  bool concat_slices = true; // Concat inputs are written into their slices; Concat is elided
  // (value, node): the value's bytes must stay intact until the node has run, as if the node
  // read it too (a fused DSP chain reads its members' inputs when its last member runs).
  std::vector<std::pair<ValueId, NodeId>> extra_reads;
};

struct MemoryPlanStats {
  uint64_t arena_bytes = 0;
  // The most bytes live at once in the sequential order (a floor for any plan of one stream
  // without aliasing; aliasing can go below it).
  uint64_t lower_bound_bytes = 0;
  uint64_t no_reuse_bytes = 0;  // every activation in its own buffer
  int64_t inplace_ops = 0;      // in-place writers
  int64_t elided_views = 0;
  int64_t elided_concats = 0;
  int64_t planned_values = 0;
};

Expected<MemoryPlan> PlanMemory(const Graph& graph, const Schedule& schedule,
                                const MemoryPlannerOptions& options,
                                MemoryPlanStats* stats = nullptr);

// The statistics of any valid plan (for kiln inspect on a .kiln file, and PlanMemory). The
// liveness bound counts `extra_reads` (MemoryPlannerOptions) as accesses, as the plan did.
Expected<MemoryPlanStats> DescribeMemoryPlan(
    const Graph& graph, const MemoryPlan& plan,
    const std::vector<std::pair<ValueId, NodeId>>& extra_reads = {});

}  // namespace kiln
