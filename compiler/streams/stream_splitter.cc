// SplitStreams: longest-path critical path on stream 0, chains kept on one stream, branches
// spread over the least-loaded other streams; then minimal events.
#include "compiler/streams/stream_splitter.h"

#include <algorithm>

#include "compiler/model_stats.h"
#include "ir/happens_before.h"
#include "ir/plan_rules.h"

namespace kiln {
namespace {

double NodeCost(const Graph& g, const Node& n) {
  const int64_t macs = NodeMacs(g, n);
  if (macs > 0) return static_cast<double>(macs);
  int64_t elements = 0;
  for (ValueId out : n.outputs) {
    if (out != kNoValue) elements += g.value(out).num_elements();
  }
  return std::max<double>(1.0, static_cast<double>(elements));
}

// Producer nodes of a node's inputs, without repeats.
std::vector<NodeId> Predecessors(const Graph& g, const Node& n) {
  std::vector<NodeId> preds;
  for (ValueId in : n.inputs) {
    if (in == kNoValue) continue;
    const NodeId p = g.value(in).producer;
    if (p != kNoNode && std::find(preds.begin(), preds.end(), p) == preds.end()) preds.push_back(p);
  }
  return preds;
}

}  // namespace

std::vector<Schedule::Event> MinimalEvents(const Graph& g, const std::vector<int32_t>& stream,
                                           int32_t num_streams, int64_t* cross_stream_edges) {
  const size_t n = g.num_nodes();
  std::vector<NodeSet> before;
  before.resize(n, NodeSet(n));
  std::vector<NodeId> last(static_cast<size_t>(num_streams), kNoNode);
  std::vector<Schedule::Event> events;
  int64_t cross = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto id = static_cast<NodeId>(i);
    NodeSet& set = before[i];
    NodeId& prev = last[static_cast<size_t>(stream[i])];
    if (prev != kNoNode) {
      set.UnionWith(before[static_cast<size_t>(prev)]);
      set.Insert(prev);
    }
    // Latest producers first: their predecessor sets imply the most.
    std::vector<NodeId> preds = Predecessors(g, g.node(id));
    std::sort(preds.rbegin(), preds.rend());
    for (NodeId p : preds) {
      if (stream[static_cast<size_t>(p)] == stream[i]) continue;
      ++cross;
      if (set.Contains(p)) continue;  // already ordered through other edges
      events.push_back({p, id});
      set.UnionWith(before[static_cast<size_t>(p)]);
      set.Insert(p);
    }
    prev = id;
  }
  std::sort(events.begin(), events.end(), [](const auto& a, const auto& b) {
    return a.wait != b.wait ? a.wait < b.wait : a.signal < b.signal;
  });
  if (cross_stream_edges) *cross_stream_edges = cross;
  return events;
}

Expected<Schedule> SplitStreams(const Graph& g, int32_t max_streams, StreamStats* stats) {
  if (max_streams < 1 || max_streams > kMaxStreams) {
    return InvalidArgument("streams must be 1.." + std::to_string(kMaxStreams) + ", got " +
                           std::to_string(max_streams));
  }
  const size_t n = g.num_nodes();
  Schedule s;
  s.num_streams = max_streams;
  s.stream.assign(n, 0);
  if (max_streams > 1 && n > 0) {
    // Longest path (by cost) ending at each node.
    std::vector<double> dist(n, 0);
    std::vector<NodeId> via(n, kNoNode);
    for (size_t i = 0; i < n; ++i) {
      const Node& node = g.node(static_cast<NodeId>(i));
      double best = 0;
      for (NodeId p : Predecessors(g, node)) {
        if (dist[static_cast<size_t>(p)] > best) {
          best = dist[static_cast<size_t>(p)];
          via[i] = p;
        }
      }
      dist[i] = best + NodeCost(g, node);
    }
    std::vector<bool> critical(n, false);
    NodeId at = static_cast<NodeId>(std::max_element(dist.begin(), dist.end()) - dist.begin());
    for (; at != kNoNode; at = via[static_cast<size_t>(at)])
      critical[static_cast<size_t>(at)] = true;

    std::vector<double> load(static_cast<size_t>(max_streams), 0);
    std::vector<NodeId> tail(static_cast<size_t>(max_streams), kNoNode);  // last node per stream
    for (size_t i = 0; i < n; ++i) {
      const auto id = static_cast<NodeId>(i);
      const Node& node = g.node(id);
      int32_t chosen = -1;
      if (critical[i]) {
        chosen = 0;
      } else {
        // Continue a chain: a predecessor that is the last node of a side stream.
        for (NodeId p : Predecessors(g, node)) {
          const int32_t ps = s.stream[static_cast<size_t>(p)];
          if (ps != 0 && tail[static_cast<size_t>(ps)] == p) chosen = ps;
        }
        if (chosen < 0) {
          chosen = 1;
          for (int32_t k = 2; k < max_streams; ++k) {
            if (load[static_cast<size_t>(k)] < load[static_cast<size_t>(chosen)]) chosen = k;
          }
        }
      }
      s.stream[i] = chosen;
      tail[static_cast<size_t>(chosen)] = id;
      load[static_cast<size_t>(chosen)] += NodeCost(g, node);
    }
  }
  int64_t cross = 0;
  s.events = MinimalEvents(g, s.stream, s.num_streams, &cross);
  // Drop streams nobody uses, keeping their order (the critical path stays on stream 0).
  std::vector<int32_t> remap(static_cast<size_t>(s.num_streams), -1);
  for (int32_t st : s.stream) remap[static_cast<size_t>(st)] = 0;
  int32_t used = 0;
  for (int32_t& r : remap) {
    if (r == 0) r = used++;
  }
  for (int32_t& st : s.stream) st = remap[static_cast<size_t>(st)];
  s.num_streams = std::max(used, 1);
  if (stats) {
    stats->streams_used = s.num_streams;
    stats->cross_stream_edges = cross;
    stats->events = static_cast<int64_t>(s.events.size());
  }
  return s;
}

}  // namespace kiln
