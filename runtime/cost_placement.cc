// Cost-aware placement: support-only assignment, accelerator islands, and the keep-or-fall-back
// decision of each island by the executors' declared cost models.
#include "runtime/cost_placement.h"

#include <algorithm>
#include <cstdio>
#include <numeric>

#include "kernels/dsp/dsp_engine.h"
#include "runtime/placement.h"

namespace kiln {
namespace {

bool IsGpu(const std::string& e) { return e.rfind(kExecutorOpenCL, 0) == 0; }

// Rough work of a node for the CPU and GPU models: MACs of the linear ops, else one element
// operation per output element.
struct Work {
  double macs = 0, elems = 0;
};
Work EstimateWork(const Graph& g, const Node& n) {
  Work w;
  double out = 0;
  for (ValueId v : n.outputs) {
    if (v != kNoValue) out += static_cast<double>(g.value(v).num_elements());
  }
  const auto input_shape = [&](size_t i) -> const Shape* {
    return i < n.inputs.size() && n.inputs[i] != kNoValue ? &g.value(n.inputs[i]).shape : nullptr;
  };
  switch (n.op) {
    case OpType::kConv:
    case OpType::kFusedConv:
    case OpType::kQConv:
      if (const Shape* ws = input_shape(1); ws && ws->size() >= 2) {
        w.macs = out * static_cast<double>(NumElements(*ws) / std::max<int64_t>(1, (*ws)[0]));
        return w;
      }
      break;
    case OpType::kGemm:
    case OpType::kFusedGemm:
    case OpType::kQGemm:
    case OpType::kMatMul:
      if (const Shape* bs = input_shape(1); bs && bs->size() == 2) {
        const bool tb = n.attrs.GetInt("transB", 0) != 0;
        w.macs = out * static_cast<double>(tb ? (*bs)[1] : (*bs)[0]);
        return w;
      }
      break;
    default:
      break;
  }
  w.elems = out;
  return w;
}

class Estimator {
 public:
  Estimator(const Graph& g, const PlacementCosts& c) : g_(g), c_(c), dsp_us_(g.num_nodes(), -1) {}

  double NodeUs(NodeId id, const std::string& executor) {
    const Node& n = g_.node(id);
    if (executor == kExecutorDsp) return DspUs(id);
    const Work w = EstimateWork(g_, n);
    if (IsGpu(executor))
      return c_.gpu_node_us + w.macs / c_.gpu_macs_per_us + w.elems / c_.gpu_elems_per_us;
    return c_.cpu_node_us + w.macs / c_.cpu_macs_per_us + w.elems / c_.cpu_elems_per_us;
  }

  // Cost of moving value v between the host and `executor`.
  double TransferUs(ValueId v, const std::string& executor) const {
    if (executor == kExecutorDsp) return c_.dsp_handoff_us;
    if (IsGpu(executor))
      return c_.gpu_node_us + static_cast<double>(g_.value(v).byte_size()) / c_.gpu_bytes_per_us;
    return 0;
  }

 private:
  double DspUs(NodeId id) {
    double& cached = dsp_us_[static_cast<size_t>(id)];
    if (cached >= 0) return cached;
    cached = 1e30;
    auto op = MakeDspOp(g_, g_.node(id));
    if (!op.ok()) return cached;
    auto program = (*op)->Plan(c_.dsp.scratch_bytes);
    if (!program.ok()) return cached;
    const int64_t cycles = DspProgramCycles(*program, **op, c_.dsp.cost);
    cached = static_cast<double>(cycles) /
             static_cast<double>(std::max<int64_t>(1, c_.dsp.cost.clock_mhz));
    return cached;
  }

  const Graph& g_;
  const PlacementCosts& c_;
  std::vector<double> dsp_us_;
};

// The node whose executor produces v's bytes: through nodes placed "-" (views) to their data
// input's producer; kNoNode for graph inputs and constants.
NodeId SourceNode(const Graph& g, const std::vector<std::string>& placement, ValueId v) {
  for (int hops = 0; hops < 1000 && v != kNoValue; ++hops) {
    const Value& val = g.value(v);
    if (val.is_constant() || val.producer == kNoNode) return kNoNode;
    const auto p = static_cast<size_t>(val.producer);
    if (placement[p] != "-") return val.producer;
    const Node& n = g.node(val.producer);
    v = n.inputs.empty() ? kNoValue : n.inputs[0];
  }
  return kNoNode;
}

std::string HomeOf(const Graph& g, const std::vector<std::string>& placement, ValueId v) {
  const NodeId src = SourceNode(g, placement, v);
  return src == kNoNode ? std::string(kExecutorCpu) : placement[static_cast<size_t>(src)];
}

bool Supports(const std::string& e, const Graph& g, const Node& n, const PlacementCosts& c,
              std::string* why) {
  if (e == kExecutorCpu) return true;
  std::optional<std::string> reason;
  if (e == kExecutorDsp) {
    reason = DspFallbackReason(g, n, c.dsp.scratch_bytes);
  } else if (IsGpu(e)) {
    reason = GpuFallbackReason(g, n);
  } else {
    reason = "unknown executor";
  }
  if (reason) *why = *reason;
  return !reason;
}

}  // namespace

double EstimatePlacementUs(const Graph& g, const std::vector<std::string>& placement,
                           const PlacementCosts& costs) {
  Estimator est(g, costs);
  double total = 0;
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    const std::string& e = placement[i];
    if (e == "-") continue;
    const Node& n = g.node(static_cast<NodeId>(i));
    total += est.NodeUs(static_cast<NodeId>(i), e);
    std::vector<ValueId> seen;
    for (ValueId v : n.inputs) {
      if (v == kNoValue || g.value(v).is_constant()) continue;
      if (std::find(seen.begin(), seen.end(), v) != seen.end()) continue;
      seen.push_back(v);
      const std::string home = HomeOf(g, placement, v);
      if (home == e) continue;
      // Staged through the host: out of the producer's device, into the consumer's.
      total += est.TransferUs(v, home) + est.TransferUs(v, e);
    }
  }
  for (ValueId v : g.outputs()) total += est.TransferUs(v, HomeOf(g, placement, v));
  return total;
}

Expected<CostPlacement> PlaceByCost(const Graph& g, const std::vector<std::string>& preference,
                                    const PlacementCosts& costs, const std::vector<bool>& skip) {
  std::vector<std::string> order = preference;
  if (std::find(order.begin(), order.end(), kExecutorCpu) == order.end())
    order.push_back(kExecutorCpu);
  CostPlacement out;
  out.placement.assign(g.num_nodes(), "-");
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    if (i < skip.size() && skip[i]) continue;
    const Node& n = g.node(static_cast<NodeId>(i));
    for (const std::string& e : order) {
      std::string why;
      if (Supports(e, g, n, costs, &why)) {
        out.placement[i] = e;
        break;
      }
      out.fallbacks.push_back({static_cast<NodeId>(i), e, why});
    }
  }
  out.support_only_us = EstimatePlacementUs(g, out.placement, costs);

  // Islands: accelerator nodes joined through the values they pass each other.
  std::vector<size_t> parent(g.num_nodes());
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    const std::string& e = out.placement[i];
    if (e == "-" || e == kExecutorCpu) continue;
    for (ValueId v : g.node(static_cast<NodeId>(i)).inputs) {
      if (v == kNoValue) continue;
      const NodeId src = SourceNode(g, out.placement, v);
      if (src != kNoNode && out.placement[static_cast<size_t>(src)] == e) {
        parent[find(i)] = find(static_cast<size_t>(src));
      }
    }
  }
  std::vector<std::vector<NodeId>> islands(g.num_nodes());
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    const std::string& e = out.placement[i];
    if (e != "-" && e != kExecutorCpu) islands[find(i)].push_back(static_cast<NodeId>(i));
  }
  Estimator est(g, costs);
  for (const auto& island : islands) {
    if (island.empty()) continue;
    PlacementDecision d;
    d.executor = out.placement[static_cast<size_t>(island[0])];
    d.nodes = island;
    for (NodeId id : island) {
      d.accel_us += est.NodeUs(id, d.executor);
      d.cpu_us += est.NodeUs(id, kExecutorCpu);
    }
    // Edges: values entering from outside the island, and values leaving it.
    std::vector<ValueId> in_edges, out_edges;
    auto in_island = [&](NodeId n) {
      return std::find(island.begin(), island.end(), n) != island.end();
    };
    for (NodeId id : island) {
      for (ValueId v : g.node(id).inputs) {
        if (v == kNoValue || g.value(v).is_constant()) continue;
        const NodeId src = SourceNode(g, out.placement, v);
        if ((src == kNoNode || !in_island(src)) &&
            std::find(in_edges.begin(), in_edges.end(), v) == in_edges.end()) {
          in_edges.push_back(v);
        }
      }
    }
    for (size_t j = 0; j < g.num_nodes(); ++j) {
      if (out.placement[j] == "-" || in_island(static_cast<NodeId>(j))) continue;
      for (ValueId v : g.node(static_cast<NodeId>(j)).inputs) {
        if (v == kNoValue) continue;
        const NodeId src = SourceNode(g, out.placement, v);
        if (src != kNoNode && in_island(src) &&
            std::find(out_edges.begin(), out_edges.end(), v) == out_edges.end()) {
          out_edges.push_back(v);
        }
      }
    }
    for (ValueId v : g.outputs()) {
      const NodeId src = SourceNode(g, out.placement, v);
      if (src != kNoNode && in_island(src) &&
          std::find(out_edges.begin(), out_edges.end(), v) == out_edges.end()) {
        out_edges.push_back(v);
      }
    }
    for (ValueId v : in_edges) d.transfer_us += est.TransferUs(v, d.executor);
    for (ValueId v : out_edges) d.transfer_us += est.TransferUs(v, d.executor);
    d.kept = d.accel_us + d.transfer_us < d.cpu_us;
    if (!d.kept) {
      for (NodeId id : island) out.placement[static_cast<size_t>(id)] = kExecutorCpu;
    }
    out.decisions.push_back(std::move(d));
  }
  out.estimated_us = EstimatePlacementUs(g, out.placement, costs);
  return out;
}

std::string DescribeDecision(const Graph& g, const PlacementDecision& d) {
  char buf[256];
  const std::string first = g.node(d.nodes.front()).name, last = g.node(d.nodes.back()).name;
  std::snprintf(
      buf, sizeof(buf),
      "%s island of %zu node%s (%s%s%s): %s %.1f us + transfers %.1f us vs cpu %.1f us -> %s",
      d.executor.c_str(), d.nodes.size(), d.nodes.size() == 1 ? "" : "s", first.c_str(),
      d.nodes.size() > 1 ? " .. " : "", d.nodes.size() > 1 ? last.c_str() : "", d.executor.c_str(),
      d.accel_us, d.transfer_us, d.cpu_us, d.kept ? d.executor.c_str() : "cpu");
  return buf;
}

}  // namespace kiln
