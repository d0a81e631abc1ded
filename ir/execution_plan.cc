// Default plans and the execution-plan validator.
#include "ir/execution_plan.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "ir/happens_before.h"
#include "ir/plan_rules.h"

namespace kiln {
namespace {

std::string NodeText(const Graph& g, NodeId n) {
  return "node '" + g.node(n).name + "' (" + std::string(OpTypeName(g.node(n).op)) + ")";
}

Status CheckSchedule(const Graph& g, const Schedule& s) {
  const size_t n = g.num_nodes();
  if (s.num_streams < 1 || s.num_streams > kMaxStreams) {
    return InvalidArgument("schedule has " + std::to_string(s.num_streams) + " streams (1.." +
                           std::to_string(kMaxStreams) + ")");
  }
  if (s.stream.size() != n) {
    return InvalidArgument("schedule covers " + std::to_string(s.stream.size()) + " nodes, the graph has " +
                           std::to_string(n));
  }
  for (int32_t st : s.stream) {
    if (st < 0 || st >= s.num_streams) return InvalidArgument("schedule names stream " + std::to_string(st));
  }
  for (const auto& e : s.events) {
    if (e.signal < 0 || e.wait < 0 || static_cast<size_t>(e.signal) >= n ||
        static_cast<size_t>(e.wait) >= n) {
      return InvalidArgument("schedule event names a node out of range");
    }
    // Streams follow graph order, so a backward event could deadlock.
    if (e.signal >= e.wait) {
      return InvalidArgument("schedule event from " + NodeText(g, e.signal) + " to " +
                             NodeText(g, e.wait) + " runs backwards");
    }
  }
  return Status::Ok();
}

// Every value a node reads was produced by a node that happens before it.
Status CheckDependencies(const Graph& g, const HappensBefore& hb) {
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    const auto id = static_cast<NodeId>(i);
    for (ValueId in : g.node(id).inputs) {
      if (in == kNoValue) continue;
      const NodeId p = g.value(in).producer;
      if (p != kNoNode && !hb.Before(p, id)) {
        return InvalidArgument("schedule lets " + NodeText(g, id) + " read '" +
                               g.value(in).name + "' before " + NodeText(g, p) + " wrote it");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Schedule Schedule::Sequential(const Graph& graph) {
  Schedule s;
  s.stream.assign(graph.num_nodes(), 0);
  return s;
}

bool MemoryPlan::IsPlannable(const Graph& graph, ValueId v) {
  const Value& value = graph.value(v);
  if (value.is_constant() || value.producer == kNoNode) return false;
  const auto& ins = graph.inputs();
  const auto& outs = graph.outputs();
  return std::find(ins.begin(), ins.end(), v) == ins.end() &&
         std::find(outs.begin(), outs.end(), v) == outs.end();
}

MemoryPlan MemoryPlan::NoReuse(const Graph& graph) {
  MemoryPlan p;
  p.offsets.assign(graph.num_values(), kNotPlanned);
  p.inplace_of.assign(graph.num_values(), kNoValue);
  for (size_t v = 0; v < graph.num_values(); ++v) {
    if (!IsPlannable(graph, static_cast<ValueId>(v))) continue;
    p.offsets[v] = static_cast<int64_t>(p.arena_bytes);
    p.arena_bytes += (graph.value(static_cast<ValueId>(v)).byte_size() + kAlignment - 1) /
                     kAlignment * kAlignment;
  }
  return p;
}

Status ValidateExecutionPlan(const Graph& g, const ExecutionPlan& plan) {
  KILN_RETURN_IF_ERROR(CheckSchedule(g, plan.schedule));
  const HappensBefore hb(g, plan.schedule);
  KILN_RETURN_IF_ERROR(CheckDependencies(g, hb));
  KILN_ASSIGN_OR_RETURN(BufferGroups groups, GroupBuffers(g, plan.memory));
  KILN_RETURN_IF_ERROR(CheckArenaSize(g, plan.memory));
  KILN_RETURN_IF_ERROR(CheckAliasRules(g, plan.memory, hb, groups));
  return CheckNoOverlap(g, plan.memory, hb, groups);
}

}  // namespace kiln
