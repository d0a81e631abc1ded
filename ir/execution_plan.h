// How a compiled graph runs: its schedule (which stream runs each node, and the events that
// order nodes across streams) and its memory plan (where each activation lives in the
// arena). Both are made offline by the compiler, stored as signed sections of the model file,
// checked by ValidateExecutionPlan before a session uses them, and only followed at run time.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/graph.h"

namespace kiln {

// Streams run concurrently; each runs its nodes in graph order. Before node `wait` starts,
// node `signal` (on another stream) has finished.
struct Schedule {
  struct Event {
    NodeId signal = kNoNode;
    NodeId wait = kNoNode;
  };
  int32_t num_streams = 1;
  std::vector<int32_t> stream;  // by node id
  std::vector<Event> events;    // sorted by wait node, then signal node

  // One stream, no events.
  static Schedule Sequential(const Graph& graph);
};

// One activation arena per memory domain, all with the same offsets. Graph inputs and outputs
// and constants are not in the arena (they keep their own buffers).
struct MemoryPlan {
  static constexpr int64_t kNotPlanned = -1;
  static constexpr uint64_t kAlignment = 64;
  uint64_t arena_bytes = 0;
  std::vector<int64_t> offsets;  // by value id: arena offset, or kNotPlanned
  // By value id: the value whose buffer this one takes over in place (an elementwise op, or
  // FusedConv's residual, writing over an input that dies there), or kNoValue.
  std::vector<ValueId> inplace_of;
  // Nodes that need not run: Concat whose inputs were written into their slices of its
  // output, and Reshape-like views whose output shares their input's buffer.
  std::vector<NodeId> elided;

  // Every planned value gets its own range, in value order (what a file without a plan runs
  // with; the compiler's planner does far better).
  static MemoryPlan NoReuse(const Graph& graph);
  // Whether value `v` lives in the arena.
  static bool IsPlannable(const Graph& graph, ValueId v);
};

struct ExecutionPlan {
  Schedule schedule;
  MemoryPlan memory;

  static ExecutionPlan Default(const Graph& graph) {
    return {Schedule::Sequential(graph), MemoryPlan::NoReuse(graph)};
  }
};

// Checks the plan against the graph: the schedule orders every data dependency (so streams
// cannot race), events run forward (so streams cannot deadlock), every planned value lies in
// the arena, aligned, and no two values that may be live at the same time -- under the
// happens-before order of the schedule, not only the graph order -- overlap, unless one
// legally takes the other over (in place, or a Concat slice). Elided nodes are checked to be
// true no-ops under the plan.
Status ValidateExecutionPlan(const Graph& graph, const ExecutionPlan& plan);

}  // namespace kiln
