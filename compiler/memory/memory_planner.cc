// PlanMemory: alias decisions (Concat slices, views, in place), buffer groups, conflicts from
// happens-before, then greedy-by-size best-fit offsets.
#include "compiler/memory/memory_planner.h"

#include <algorithm>
#include <numeric>
#include <set>

#include "ir/happens_before.h"
#include "ir/plan_rules.h"

namespace kiln {
namespace {

uint64_t Align(uint64_t v) {
  return (v + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment;
}

// Alias decisions, made greedily in node order; the same rules ValidateExecutionPlan checks.
class AliasDecider {
 public:
  AliasDecider(const Graph& g, const HappensBefore& hb, MemoryPlan& plan)
      : g_(g), hb_(hb), plan_(plan), readers_(g.num_values()), role_(g.num_values(), kFree) {
    for (size_t n = 0; n < g.num_nodes(); ++n) {
      for (ValueId v : g.node(static_cast<NodeId>(n)).inputs) {
        if (v == kNoValue) continue;
        auto& r = readers_[static_cast<size_t>(v)];
        if (r.empty() || r.back() != static_cast<NodeId>(n)) r.push_back(static_cast<NodeId>(n));
      }
    }
  }

  // Latest first: a DenseNet layer concatenates every earlier output of its block, so the
  // block's last (largest) Concat takes all the parts as its slices, and each earlier one,
  // whose parts are that Concat's leading parts in order, is a prefix of its buffer (elided
  // too, its output the prefix). In node order the first Concat had taken the parts and every
  // later one copied them: densenet121's 58 Concats, 5 % of its time.
  void Concats(MemoryPlanStats& stats) {
    std::vector<std::pair<NodeId, size_t>> slice_of(g_.num_values(), {-1, 0});
    for (size_t n = g_.num_nodes(); n-- > 0;) {
      const Node& c = g_.node(static_cast<NodeId>(n));
      if (!IsSliceableConcat(g_, c) || !Free(c.outputs[0])) continue;
      bool free = true, prefix = true;
      const NodeId owner = slice_of[static_cast<size_t>(c.inputs[0])].first;
      for (size_t k = 0; k < c.inputs.size(); ++k) {
        const ValueId x = c.inputs[k];
        free = free && Free(x);
        prefix = prefix && owner >= 0 &&
                 slice_of[static_cast<size_t>(x)] == std::pair<NodeId, size_t>{owner, k};
      }
      if (!free && !prefix) continue;
      if (free) {
        for (size_t k = 0; k < c.inputs.size(); ++k) {
          role_[static_cast<size_t>(c.inputs[k])] = kConcat;
          slice_of[static_cast<size_t>(c.inputs[k])] = {static_cast<NodeId>(n), k};
        }
      }
      role_[static_cast<size_t>(c.outputs[0])] = kConcat;
      plan_.elided.push_back(static_cast<NodeId>(n));
      ++stats.elided_concats;
    }
  }

  void Views(MemoryPlanStats& stats) {
    for (size_t n = 0; n < g_.num_nodes(); ++n) {
      const Node& e = g_.node(static_cast<NodeId>(n));
      if (!IsViewOp(e.op) || e.outputs.empty() || e.outputs[0] == kNoValue) continue;
      const ValueId x = e.inputs[0], y = e.outputs[0];
      // The source must be read through the view only, and be no Concat part.
      if (!Plannable(x) || !Plannable(y) || readers_[static_cast<size_t>(x)].size() != 1 ||
          role_[static_cast<size_t>(x)] == kConcat || role_[static_cast<size_t>(y)] != kFree) {
        continue;
      }
      if (g_.value(x).byte_size() != g_.value(y).byte_size()) continue;
      plan_.inplace_of[static_cast<size_t>(y)] = x;
      role_[static_cast<size_t>(y)] = kAlias;
      if (role_[static_cast<size_t>(x)] == kFree) role_[static_cast<size_t>(x)] = kAliased;
      plan_.elided.push_back(static_cast<NodeId>(n));
      ++stats.elided_views;
    }
  }

  void InPlace(MemoryPlanStats& stats) {
    std::vector<bool> elided(g_.num_nodes(), false);
    for (NodeId e : plan_.elided) elided[static_cast<size_t>(e)] = true;
    std::vector<bool> view_source(g_.num_values(), false);
    for (NodeId e : plan_.elided) {
      if (IsViewOp(g_.node(e).op)) view_source[static_cast<size_t>(g_.node(e).inputs[0])] = true;
    }
    for (size_t n = 0; n < g_.num_nodes(); ++n) {
      if (elided[n]) continue;
      const Node& p = g_.node(static_cast<NodeId>(n));
      const auto slot = InPlaceSlot(g_, p);
      if (!slot) continue;
      const ValueId u = p.inputs[*slot], v = p.outputs[0];
      if (!Plannable(u) || !Plannable(v) || role_[static_cast<size_t>(v)] != kFree ||
          role_[static_cast<size_t>(u)] == kConcat || view_source[static_cast<size_t>(u)] ||
          taken_over_.count(u)) {
        continue;
      }
      bool last = true;  // every other reader of u finishes before p
      for (NodeId r : readers_[static_cast<size_t>(u)]) {
        last = last && (r == static_cast<NodeId>(n) || hb_.Before(r, static_cast<NodeId>(n)));
      }
      if (!last) continue;
      plan_.inplace_of[static_cast<size_t>(v)] = u;
      role_[static_cast<size_t>(v)] = kAlias;
      if (role_[static_cast<size_t>(u)] == kFree) role_[static_cast<size_t>(u)] = kAliased;
      taken_over_.insert(u);
      ++stats.inplace_ops;
    }
  }

 private:
  // kFree: no alias yet. kAlias: takes over another value. kAliased: taken over by another.
  // kConcat: a Concat slice or output.
  enum Role { kFree, kAlias, kAliased, kConcat };
  bool Plannable(ValueId v) const { return MemoryPlan::IsPlannable(g_, v); }
  bool Free(ValueId v) const { return Plannable(v) && role_[static_cast<size_t>(v)] == kFree; }

  const Graph& g_;
  const HappensBefore& hb_;
  MemoryPlan& plan_;
  std::vector<std::vector<NodeId>> readers_;
  std::vector<Role> role_;
  std::set<ValueId> taken_over_;
};

// Byte offset of every value relative to its group's base (Concat slices sit inside).
std::vector<uint64_t> RelativeOffsets(const Graph& g, const MemoryPlan& plan) {
  std::vector<uint64_t> rel(g.num_values(), 0);
  for (NodeId e : plan.elided) {
    const Node& c = g.node(e);
    if (c.op != OpType::kConcat) continue;
    const auto slices = ConcatSliceOffsets(g, c);
    for (size_t k = 0; k < c.inputs.size(); ++k) rel[static_cast<size_t>(c.inputs[k])] = slices[k];
  }
  return rel;
}

}  // namespace

Expected<MemoryPlan> PlanMemory(const Graph& g, const Schedule& schedule,
                                const MemoryPlannerOptions& options, MemoryPlanStats* out_stats) {
  MemoryPlanStats stats;  // alias counts as decided
  const HappensBefore hb(g, schedule);
  MemoryPlan plan;
  plan.inplace_of.assign(g.num_values(), kNoValue);
  {
    AliasDecider decide(g, hb, plan);
    if (options.concat_slices) decide.Concats(stats);
    if (options.views) decide.Views(stats);
    if (options.inplace) decide.InPlace(stats);
  }
  // Provisional offsets (every group at 0, Concat slices inside) in an unbounded arena, so
  // that GroupBuffers computes members, ranges and accesses.
  plan.offsets.assign(g.num_values(), MemoryPlan::kNotPlanned);
  plan.arena_bytes = UINT64_MAX / 4;  // unbounded while grouping
  const std::vector<uint64_t> rel = RelativeOffsets(g, plan);
  for (size_t v = 0; v < g.num_values(); ++v) {
    if (MemoryPlan::IsPlannable(g, static_cast<ValueId>(v))) {
      plan.offsets[v] = static_cast<int64_t>(rel[v]);
    }
  }
  KILN_ASSIGN_OR_RETURN(BufferGroups groups, GroupBuffers(g, plan));
  for (const auto& [v, n] : options.extra_reads) {
    if (v < 0 || static_cast<size_t>(v) >= g.num_values() || n < 0 ||
        static_cast<size_t>(n) >= g.num_nodes()) {
      return InvalidArgument("memory planner: an extra read names an unknown value or node");
    }
    const int32_t gi = groups.group_of[static_cast<size_t>(v)];
    if (gi < 0) continue;  // not in the arena
    auto& acc = groups.accesses[static_cast<size_t>(gi)];
    if (std::find(acc.begin(), acc.end(), n) == acc.end()) acc.push_back(n);
  }
  const size_t count = groups.members.size();
  std::vector<uint64_t> size(count);
  for (size_t i = 0; i < count; ++i) size[i] = Align(groups.end[i] - groups.begin[i]);

  // Which buffers may not share bytes: neither is done with before the other starts.
  std::vector<std::vector<bool>> conflict(count, std::vector<bool>(count, false));
  for (size_t i = 0; i < count; ++i) {
    for (size_t j = i + 1; j < count; ++j) {
      const auto a = static_cast<int32_t>(i), b = static_cast<int32_t>(j);
      conflict[i][j] = conflict[j][i] = !GroupBefore(groups, hb, g.num_nodes(), a, b) &&
                                        !GroupBefore(groups, hb, g.num_nodes(), b, a);
    }
  }
  // Best fit in a given order: each buffer in the smallest gap between the already placed
  // buffers it conflicts with (or above them all). No order is best for every graph, so the
  // planner tries a few (TFLite's greedy-by-size and greedy-by-breadth among them) and keeps the
  // smallest arena, the first such on ties.
  const auto place = [&](const std::vector<size_t>& order, std::vector<uint64_t>& base) {
    base.assign(count, 0);
    std::vector<size_t> placed;
    uint64_t arena = 0;
    for (size_t gi : order) {
      std::vector<std::pair<uint64_t, uint64_t>> busy;  // [begin, end) of conflicting buffers
      for (size_t pj : placed) {
        if (conflict[gi][pj]) busy.emplace_back(base[pj], base[pj] + size[pj]);
      }
      std::sort(busy.begin(), busy.end());
      uint64_t best = UINT64_MAX, best_gap = UINT64_MAX, cursor = 0;
      for (const auto& [b, e] : busy) {
        if (b > cursor && b - cursor >= size[gi] && b - cursor < best_gap) {
          best = cursor;
          best_gap = b - cursor;
        }
        cursor = std::max(cursor, e);
      }
      base[gi] = best != UINT64_MAX ? best : cursor;
      placed.push_back(gi);
      arena = std::max(arena, base[gi] + size[gi]);
    }
    return arena;
  };
  std::vector<int64_t> first(count, 0), last(count, 0);
  for (size_t i = 0; i < count; ++i) {
    if (groups.accesses[i].empty()) continue;
    const auto [lo, hi] = std::minmax_element(groups.accesses[i].begin(), groups.accesses[i].end());
    first[i] = *lo;
    last[i] = *hi;
  }
  const auto sorted = [&](auto before) {
    std::vector<size_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), before);
    return order;
  };
  const std::vector<std::vector<size_t>> orders = {
      // Biggest first (greedy by size).
      sorted([&](size_t a, size_t b) { return size[a] > size[b]; }),
      // Biggest first, the longest-lived first among equals.
      sorted([&](size_t a, size_t b) {
        return size[a] != size[b] ? size[a] > size[b] : last[a] - first[a] > last[b] - first[b];
      }),
      // The most bytes x steps first.
      sorted([&](size_t a, size_t b) {
        return size[a] * static_cast<uint64_t>(last[a] - first[a] + 1) >
               size[b] * static_cast<uint64_t>(last[b] - first[b] + 1);
      }),
      // In order of first use, biggest first among equals (greedy by breadth).
      sorted([&](size_t a, size_t b) {
        return first[a] != first[b] ? first[a] < first[b] : size[a] > size[b];
      }),
  };
  std::vector<uint64_t> base, candidate;
  plan.arena_bytes = UINT64_MAX;
  for (const auto& order : orders) {
    const uint64_t arena = place(order, candidate);
    if (arena < plan.arena_bytes) {
      plan.arena_bytes = arena;
      base.swap(candidate);
    }
  }
  for (size_t v = 0; v < g.num_values(); ++v) {
    if (plan.offsets[v] < 0) continue;
    const auto gi = static_cast<size_t>(groups.group_of[v]);
    plan.offsets[v] =
        static_cast<int64_t>(base[gi] + static_cast<uint64_t>(plan.offsets[v]) - groups.begin[gi]);
  }
  std::sort(plan.elided.begin(), plan.elided.end());
  if (out_stats) {
    KILN_ASSIGN_OR_RETURN(*out_stats, DescribeMemoryPlan(g, plan, options.extra_reads));
  }
  return plan;
}

Expected<MemoryPlanStats> DescribeMemoryPlan(
    const Graph& g, const MemoryPlan& plan,
    const std::vector<std::pair<ValueId, NodeId>>& extra_reads) {
  MemoryPlanStats stats;
  stats.arena_bytes = plan.arena_bytes;
  KILN_ASSIGN_OR_RETURN(BufferGroups groups, GroupBuffers(g, plan));
  for (const auto& [v, n] : extra_reads) {
    if (v < 0 || static_cast<size_t>(v) >= g.num_values()) continue;
    const int32_t gi = groups.group_of[static_cast<size_t>(v)];
    if (gi >= 0) groups.accesses[static_cast<size_t>(gi)].push_back(n);
  }
  for (size_t v = 0; v < g.num_values(); ++v) {
    if (plan.offsets[v] < 0) continue;
    stats.no_reuse_bytes += Align(g.value(static_cast<ValueId>(v)).byte_size());
    ++stats.planned_values;
    const ValueId u = plan.inplace_of[v];
    if (u != kNoValue) {
      const NodeId p = g.value(static_cast<ValueId>(v)).producer;
      if (!groups.elided[static_cast<size_t>(p)]) ++stats.inplace_ops;
    }
  }
  for (NodeId e : plan.elided) {
    (g.node(e).op == OpType::kConcat ? stats.elided_concats : stats.elided_views)++;
  }
  // Bytes live at each step of the sequential order, a buffer live from its first access to
  // its last.
  std::vector<int64_t> live_delta(g.num_nodes() + 1, 0);
  for (size_t i = 0; i < groups.members.size(); ++i) {
    if (groups.accesses[i].empty()) continue;
    const auto [lo, hi] = std::minmax_element(groups.accesses[i].begin(), groups.accesses[i].end());
    const auto size = static_cast<int64_t>(Align(groups.end[i] - groups.begin[i]));
    live_delta[static_cast<size_t>(*lo)] += size;
    live_delta[static_cast<size_t>(*hi) + 1] -= size;
  }
  int64_t live = 0;
  for (int64_t d : live_delta) {
    live += d;
    stats.lower_bound_bytes = std::max(stats.lower_bound_bytes, static_cast<uint64_t>(live));
  }
  return stats;
}

}  // namespace kiln
