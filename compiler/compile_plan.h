// What the plan passes build beside the graph (the streams, memory-alias, memory-plan and lower
// passes, at the end of the pipeline): the schedule, the memory plan and the options its
// planner ran with, the target backend's payloads for the file, and their statistics.
#pragma once

#include "backends/backend.h"
#include "compiler/memory/memory_planner.h"
#include "compiler/streams/stream_splitter.h"
#include "ir/execution_plan.h"

namespace kiln {

// Reuse by lifetime only: no in-place ops, views or Concat slices.
inline MemoryPlannerOptions WithoutAliasing() {
  MemoryPlannerOptions options;
  options.inplace = options.views = options.concat_slices = false;
  return options;
}

struct CompilePlan {
  ExecutionPlan plan;
  // What the memory planner may do beyond reuse by lifetime (memory-alias turns aliasing on).
  MemoryPlannerOptions memory_options = WithoutAliasing();
  // Whether memory-plan ran (a skipped one leaves MemoryPlan::NoReuse, which is never re-planned).
  bool memory_planned = false;
  MemoryPlanStats memory;
  StreamStats streams;
  ModelPayloads payloads;
};

}  // namespace kiln
