// DSP traffic totals of a session, from the executor's counters and the graph.
#include "tools/kiln/dsp_summary.h"

#include <algorithm>
#include <set>
#include <string>

#include "backends/dsp/dsp_executor.h"

namespace kiln {

DspTraffic SummarizeDspTraffic(const Session& session) {
  DspTraffic t;
  const Executor* dsp = session.executor(kExecutorDsp);
  const auto* stats = dsp ? DspStatsOf(*dsp) : nullptr;
  if (!stats) return t;
  const Graph& g = session.graph();
  const std::vector<std::string> placement = session.Placement();
  auto on_dsp = [&](NodeId n) {
    return n != kNoNode && placement[static_cast<size_t>(n)] == kExecutorDsp;
  };
  // A value produced by a view (placed "-") is its data input's bytes.
  auto source = [&](ValueId v) {
    for (int hops = 0; hops < 1000; ++hops) {
      const Value& val = g.value(v);
      if (val.producer == kNoNode) return kNoNode;
      if (placement[static_cast<size_t>(val.producer)] != "-") return val.producer;
      const Node& n = g.node(val.producer);
      if (n.inputs.empty() || n.inputs[0] == kNoValue) return kNoNode;
      v = n.inputs[0];
    }
    return kNoNode;
  };
  std::vector<ValueId> entering, leaving, weights;
  auto add_once = [](std::vector<ValueId>& list, ValueId v) {
    if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
  };
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    const Node& n = g.node(static_cast<NodeId>(i));
    const bool here = placement[i] == kExecutorDsp;
    if (placement[i] == "-") continue;
    for (ValueId v : n.inputs) {
      if (v == kNoValue) continue;
      if (g.value(v).is_constant()) {
        if (here) add_once(weights, v);
        continue;
      }
      const bool from_dsp = on_dsp(source(v));
      if (here && !from_dsp) add_once(entering, v);
      if (!here && from_dsp) add_once(leaving, v);
    }
    if (here) {
      ++t.nodes;
      for (ValueId v : n.inputs) {
        if (v != kNoValue) t.per_node_floor_bytes += static_cast<int64_t>(g.value(v).byte_size());
      }
      for (ValueId v : n.outputs) {
        if (v != kNoValue) t.per_node_floor_bytes += static_cast<int64_t>(g.value(v).byte_size());
      }
    }
  }
  for (ValueId v : g.outputs()) {
    if (on_dsp(source(v))) add_once(leaving, v);
  }
  // Readers of every DSP-produced value (through views), for the fusion estimate.
  std::vector<int> readers(g.num_values(), 0), dsp_readers(g.num_values(), 0);
  auto physical = [&](ValueId v) {
    for (int hops = 0; hops < 1000; ++hops) {
      const Value& val = g.value(v);
      if (val.producer == kNoNode || placement[static_cast<size_t>(val.producer)] != "-") return v;
      const Node& n = g.node(val.producer);
      if (n.inputs.empty() || n.inputs[0] == kNoValue) return v;
      v = n.inputs[0];
    }
    return v;
  };
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    if (placement[i] == "-") continue;
    for (ValueId v : g.node(static_cast<NodeId>(i)).inputs) {
      if (v == kNoValue || g.value(v).is_constant()) continue;
      const ValueId p = physical(v);
      ++readers[static_cast<size_t>(p)];
      if (placement[i] == kExecutorDsp) ++dsp_readers[static_cast<size_t>(p)];
    }
  }
  for (ValueId v : g.outputs()) ++readers[static_cast<size_t>(physical(v))];
  // Members of chains that ran fused (all but the last, which counts the chain), by name.
  std::set<std::string> ran_chains, fused_members;
  for (const auto& s : *stats) {
    if (s->chain_length > 0 && s->runs > 0) {
      ++t.chains;
      t.chained_nodes += s->chain_length;
      ran_chains.insert(s->node);
    }
  }
  for (const auto& s : *stats) {
    if (ran_chains.count(s->fused_into)) fused_members.insert(s->node);
  }
  std::vector<bool> fused(g.num_nodes(), false);
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    fused[i] = fused_members.count(g.node(static_cast<NodeId>(i)).name) > 0;
  }
  for (size_t v = 0; v < g.num_values(); ++v) {
    const Value& val = g.value(static_cast<ValueId>(v));
    if (val.producer != kNoNode && on_dsp(val.producer) && readers[v] == 1 && dsp_readers[v] == 1) {
      (fused[static_cast<size_t>(val.producer)] ? t.fused_bytes : t.fusible_bytes) +=
          static_cast<int64_t>(val.byte_size());
    }
  }
  for (ValueId v : weights) t.weight_bytes += static_cast<int64_t>(g.value(v).byte_size());
  for (ValueId v : entering) t.boundary_bytes += static_cast<int64_t>(g.value(v).byte_size());
  for (ValueId v : leaving) t.boundary_bytes += static_cast<int64_t>(g.value(v).byte_size());
  t.minimum_bytes = t.weight_bytes + t.boundary_bytes;
  DspCostModel cost;
  for (const auto& s : *stats) {
    t.serial_cycles += DspSerialCycles(s->planned, cost);
    t.estimated_cycles += s->cycles;
    if (s->runs == 0) continue;
    DspCounters c = s->counted;
    c.dma_in_bytes /= s->runs;
    c.dma_out_bytes /= s->runs;
    c.macs /= s->runs;
    c.elem_ops /= s->runs;
    c.commands /= s->runs;
    c.dma_commands /= s->runs;
    c.compute_commands /= s->runs;
    t.per_inference.Add(c);
  }
  return t;
}

}  // namespace kiln
