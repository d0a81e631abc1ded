// Cost-aware placement: claim-only assignment, accelerator islands, and the keep-or-fall-back
// decision of each island by the backends' cost estimates.
#include "backends/cost_placement.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>

#include "backends/backend_registry.h"

namespace kiln {

NodeWork EstimateNodeWork(const Graph& g, const Node& n) {
  NodeWork w;
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

namespace {

// A node no backend can run, for the estimates: never cheaper than anything else.
constexpr double kUnrunnableUs = 1e30;

// The backends' claims and costs, asked once per (backend, node).
class Estimator {
 public:
  Estimator(const Graph& g, const BackendOptions& options) : g_(g), options_(options) {}

  // The claim of the backend `executor` names ("opencl:1" is "opencl"'s).
  const NodeClaim& Claim(NodeId id, const std::string& executor) {
    const Backend* b = FindBackend(executor);
    std::vector<NodeClaim>& claims = claims_[b];
    if (claims.empty()) claims.resize(g_.num_nodes());
    NodeClaim& c = claims[static_cast<size_t>(id)];
    if (!asked_[b].insert(id).second) return c;
    c = b ? b->Claim(g_, g_.node(id), options_)
          : NodeClaim::Refused("no backend called '" + executor + "' (this build has " +
                               BackendNames() + ")");
    return c;
  }

  double NodeUs(NodeId id, const std::string& executor) {
    const NodeClaim& c = Claim(id, executor);
    return c.claimed() ? c.estimated_us : kUnrunnableUs;
  }

  // Cost of moving value v between the host and `executor`.
  double TransferUs(ValueId v, const std::string& executor) const {
    const Backend* b = FindBackend(executor);
    return b ? b->TransferUs(g_, v, options_) : 0;
  }

 private:
  const Graph& g_;
  const BackendOptions& options_;
  std::map<const Backend*, std::vector<NodeClaim>> claims_;
  std::map<const Backend*, std::set<NodeId>> asked_;
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

double EstimateUs(const Graph& g, const std::vector<std::string>& placement, Estimator& est) {
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

}  // namespace

double EstimatePlacementUs(const Graph& g, const std::vector<std::string>& placement,
                           const BackendOptions& options) {
  Estimator est(g, options);
  return EstimateUs(g, placement, est);
}

Expected<CostPlacement> PlaceByCost(const Graph& g, const std::vector<std::string>& preference,
                                    const BackendOptions& options, const std::vector<bool>& skip) {
  std::vector<std::string> order = preference;
  if (std::find(order.begin(), order.end(), kExecutorCpu) == order.end())
    order.push_back(kExecutorCpu);
  Estimator est(g, options);
  CostPlacement out;
  out.placement.assign(g.num_nodes(), "-");
  for (size_t i = 0; i < g.num_nodes(); ++i) {
    if (i < skip.size() && skip[i]) continue;
    const auto id = static_cast<NodeId>(i);
    for (const std::string& e : order) {
      const NodeClaim& claim = est.Claim(id, e);
      if (claim.claimed()) {
        out.placement[i] = e;
        break;
      }
      out.fallbacks.push_back({id, e, *claim.refusal});
    }
    if (out.placement[i] == "-") out.placement[i] = kExecutorCpu;
  }
  out.support_only_us = EstimateUs(g, out.placement, est);

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
  out.estimated_us = EstimateUs(g, out.placement, est);
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
