// Memory-sharing rules: in-place and view ops, sliceable Concat, buffer groups and the checks
// ValidateExecutionPlan runs over them.
#include "ir/plan_rules.h"

#include <algorithm>
#include <numeric>
#include <string>

#include "ir/layout.h"

namespace kiln {
namespace {

bool IsElementwiseUnary(OpType op) {
  switch (op) {
    case OpType::kRelu: case OpType::kLeakyRelu: case OpType::kClip: case OpType::kSigmoid:
    case OpType::kTanh: case OpType::kHardSigmoid: case OpType::kHardSwish: case OpType::kElu:
    case OpType::kSelu: case OpType::kSoftplus: case OpType::kErf: case OpType::kExp:
    case OpType::kLog: case OpType::kSqrt: case OpType::kAbs: case OpType::kNeg:
    case OpType::kReciprocal: case OpType::kFloor: case OpType::kCeil: case OpType::kSign:
      return true;
    default:
      return false;
  }
}

bool IsElementwiseBinary(OpType op) {
  return op == OpType::kAdd || op == OpType::kSub || op == OpType::kMul || op == OpType::kDiv ||
         op == OpType::kPRelu;
}

std::string ValueText(const Graph& g, ValueId v) { return "value '" + g.value(v).name + "'"; }

// Readers of `v` by node id (a node reading it twice is listed once).
std::vector<NodeId> Readers(const Graph& g, ValueId v) {
  std::vector<NodeId> out;
  for (size_t n = 0; n < g.num_nodes(); ++n) {
    const auto& ins = g.node(static_cast<NodeId>(n)).inputs;
    if (std::find(ins.begin(), ins.end(), v) != ins.end()) out.push_back(static_cast<NodeId>(n));
  }
  return out;
}

int32_t Find(std::vector<int32_t>& parent, int32_t x) {
  while (parent[static_cast<size_t>(x)] != x) {
    parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    x = parent[static_cast<size_t>(x)];
  }
  return x;
}

}  // namespace

bool IsViewOp(OpType op) {
  return op == OpType::kReshape || op == OpType::kFlatten || op == OpType::kSqueeze ||
         op == OpType::kUnsqueeze || op == OpType::kIdentity;
}

std::optional<size_t> InPlaceSlot(const Graph& g, const Node& node) {
  if (node.outputs.empty() || node.outputs[0] == kNoValue) return std::nullopt;
  const Value& out = g.value(node.outputs[0]);
  auto same = [&](size_t slot) {
    if (slot >= node.inputs.size() || node.inputs[slot] == kNoValue) return false;
    const Value& in = g.value(node.inputs[slot]);
    return in.dtype == out.dtype && in.shape == out.shape && in.layout == Layout::kPlain &&
           out.layout == Layout::kPlain;
  };
  if (IsElementwiseUnary(node.op)) {
    if (same(0)) return 0;
    return std::nullopt;
  }
  if (IsElementwiseBinary(node.op)) {
    if (same(0)) return 0;
    if (same(1)) return 1;
    return std::nullopt;
  }
  // FusedConv's residual, unless the convolution also reads it as its input X or weights:
  // their windows span elements the output would already have overwritten.
  if (node.op == OpType::kFusedConv && same(3) && node.inputs[0] != node.inputs[3] &&
      node.inputs[1] != node.inputs[3]) {
    return 3;
  }
  return std::nullopt;
}

bool IsSliceableConcat(const Graph& g, const Node& node) {
  if (node.op != OpType::kConcat || node.outputs.empty() || node.outputs[0] == kNoValue) {
    return false;
  }
  const Shape& out = g.value(node.outputs[0]).shape;
  int64_t axis = node.attrs.GetInt("axis", 0);
  if (!NormalizeAxis(axis, static_cast<int64_t>(out.size()))) return false;
  for (int64_t i = 0; i < axis; ++i) {
    if (out[static_cast<size_t>(i)] != 1) return false;
  }
  // Inputs laid end to end make the output for plain bytes, and for NCHW8c ones along the
  // channels when every input's channel count is a multiple of 8 (no padding lanes: each
  // input's blocks are whole, and the output's blocks are theirs in order). Other blocked
  // cases' padding would not add up to the output's size.
  const Layout layout = g.value(node.outputs[0]).layout;
  const bool blocked = layout == Layout::kNCHW8c;
  if (layout != Layout::kPlain && !(blocked && axis == 1 && out.size() == 4)) return false;
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] == kNoValue || g.value(node.inputs[i]).layout != layout) return false;
    const Shape& in = g.value(node.inputs[i]).shape;
    if (blocked && (in.size() != 4 || in[1] % kNCHWcBlock != 0)) return false;
    for (size_t j = 0; j < i; ++j) {
      if (node.inputs[j] == node.inputs[i]) return false;
    }
  }
  return true;
}

std::vector<uint64_t> ConcatSliceOffsets(const Graph& g, const Node& node) {
  std::vector<uint64_t> offsets;
  uint64_t at = 0;
  for (ValueId in : node.inputs) {
    offsets.push_back(at);
    at += g.value(in).byte_size();
  }
  return offsets;
}

Expected<BufferGroups> GroupBuffers(const Graph& g, const MemoryPlan& plan) {
  const size_t nv = g.num_values(), nn = g.num_nodes();
  if (plan.offsets.size() != nv || plan.inplace_of.size() != nv) {
    return InvalidArgument("memory plan covers " + std::to_string(plan.offsets.size()) +
                           " values, the graph has " + std::to_string(nv));
  }
  BufferGroups groups;
  groups.elided.assign(nn, false);
  for (NodeId e : plan.elided) {
    if (e < 0 || static_cast<size_t>(e) >= nn || groups.elided[static_cast<size_t>(e)]) {
      return InvalidArgument("memory plan elides an unknown or repeated node");
    }
    groups.elided[static_cast<size_t>(e)] = true;
  }
  // Placement of every value.
  for (size_t v = 0; v < nv; ++v) {
    const auto id = static_cast<ValueId>(v);
    const bool plannable = MemoryPlan::IsPlannable(g, id);
    const int64_t off = plan.offsets[v];
    if (!plannable) {
      if (off != MemoryPlan::kNotPlanned || plan.inplace_of[v] != kNoValue) {
        return InvalidArgument("memory plan puts " + ValueText(g, id) +
                               " (a graph input, output or constant) in the arena");
      }
      continue;
    }
    if (off < 0) return InvalidArgument("memory plan leaves " + ValueText(g, id) + " out");
    const uint64_t size = g.value(id).byte_size();
    if (size > plan.arena_bytes || static_cast<uint64_t>(off) > plan.arena_bytes - size) {
      return InvalidArgument("memory plan places " + ValueText(g, id) + " at offset " +
                             std::to_string(off) + " (" + std::to_string(size) +
                             " bytes), outside the " + std::to_string(plan.arena_bytes) +
                             "-byte arena");
    }
  }
  std::vector<int32_t> parent(nv);
  std::iota(parent.begin(), parent.end(), 0);
  // In-place and view aliases: same offset and size, made by the producing node.
  for (size_t v = 0; v < nv; ++v) {
    const ValueId u = plan.inplace_of[v];
    if (u == kNoValue) continue;
    const auto id = static_cast<ValueId>(v);
    if (u < 0 || static_cast<size_t>(u) >= nv || plan.offsets[static_cast<size_t>(u)] < 0) {
      return InvalidArgument("memory plan aliases " + ValueText(g, id) + " to a value outside the arena");
    }
    const NodeId p = g.value(id).producer;
    const Node& node = g.node(p);
    const bool view = groups.elided[static_cast<size_t>(p)] && IsViewOp(node.op) &&
                      node.inputs[0] == u;
    const auto slot = InPlaceSlot(g, node);
    const bool inplace = !groups.elided[static_cast<size_t>(p)] && slot && node.inputs[*slot] == u &&
                         node.outputs[0] == id;
    if (!view && !inplace) {
      return InvalidArgument("memory plan lets " + ValueText(g, id) + " take over " +
                             ValueText(g, u) + ", which its producer cannot do in place");
    }
    if (plan.offsets[v] != plan.offsets[static_cast<size_t>(u)] ||
        g.value(id).byte_size() != g.value(u).byte_size()) {
      return InvalidArgument("memory plan aliases " + ValueText(g, id) + " and " +
                             ValueText(g, u) + " at different places or sizes");
    }
    parent[static_cast<size_t>(Find(parent, static_cast<int32_t>(v)))] = Find(parent, u);
  }
  // Elided nodes: views (checked above through their outputs) and sliced Concats.
  for (NodeId e : plan.elided) {
    const Node& node = g.node(e);
    if (IsViewOp(node.op)) {
      if (node.outputs.empty() || node.outputs[0] == kNoValue ||
          plan.inplace_of[static_cast<size_t>(node.outputs[0])] != node.inputs[0]) {
        return InvalidArgument("memory plan elides view node '" + node.name +
                               "' whose output does not share its input's buffer");
      }
      continue;
    }
    if (!IsSliceableConcat(g, node)) {
      return InvalidArgument("memory plan elides node '" + node.name + "', which must run");
    }
    const ValueId y = node.outputs[0];
    if (plan.offsets[static_cast<size_t>(y)] < 0) {
      return InvalidArgument("memory plan elides Concat '" + node.name + "' outside the arena");
    }
    const std::vector<uint64_t> slices = ConcatSliceOffsets(g, node);
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const ValueId x = node.inputs[k];
      const int64_t want = plan.offsets[static_cast<size_t>(y)] + static_cast<int64_t>(slices[k]);
      if (plan.offsets[static_cast<size_t>(x)] != want) {
        return InvalidArgument("memory plan elides Concat '" + node.name + "' but input '" +
                               g.value(x).name + "' is not at its slice");
      }
      parent[static_cast<size_t>(Find(parent, x))] = Find(parent, y);
    }
  }
  // Collect groups.
  groups.group_of.assign(nv, -1);
  std::vector<int32_t> root_group(nv, -1);
  for (size_t v = 0; v < nv; ++v) {
    if (plan.offsets[v] < 0) continue;
    const auto root = static_cast<size_t>(Find(parent, static_cast<int32_t>(v)));
    if (root_group[root] < 0) {
      root_group[root] = static_cast<int32_t>(groups.members.size());
      groups.members.emplace_back();
      groups.begin.push_back(UINT64_MAX);
      groups.end.push_back(0);
      groups.writes.emplace_back();
      groups.accesses.emplace_back();
    }
    const int32_t gi = root_group[root];
    groups.group_of[v] = gi;
    groups.members[static_cast<size_t>(gi)].push_back(static_cast<ValueId>(v));
    const auto off = static_cast<uint64_t>(plan.offsets[v]);
    auto& b = groups.begin[static_cast<size_t>(gi)];
    auto& e = groups.end[static_cast<size_t>(gi)];
    b = std::min(b, off);
    e = std::max(e, off + g.value(static_cast<ValueId>(v)).byte_size());
  }
  // Buffers start aligned (Concat slices inside them need not be).
  for (size_t gi = 0; gi < groups.members.size(); ++gi) {
    if (groups.begin[gi] % MemoryPlan::kAlignment != 0) {
      return InvalidArgument("memory plan places the buffer of " +
                             ValueText(g, groups.members[gi][0]) + " at an unaligned offset");
    }
  }
  for (size_t n = 0; n < nn; ++n) {
    if (groups.elided[n]) continue;
    const Node& node = g.node(static_cast<NodeId>(n));
    auto add = [&](ValueId v, bool write) {
      if (v == kNoValue || groups.group_of[static_cast<size_t>(v)] < 0) return;
      const auto gi = static_cast<size_t>(groups.group_of[static_cast<size_t>(v)]);
      auto& acc = groups.accesses[gi];
      if (std::find(acc.begin(), acc.end(), static_cast<NodeId>(n)) == acc.end()) {
        acc.push_back(static_cast<NodeId>(n));
      }
      if (write) groups.writes[gi].push_back(static_cast<NodeId>(n));
    };
    for (ValueId v : node.inputs) add(v, false);
    for (ValueId v : node.outputs) add(v, true);
  }
  return groups;
}

Status CheckAliasRules(const Graph& g, const MemoryPlan& plan, const HappensBefore& hb,
                       const BufferGroups& groups) {
  const size_t nv = g.num_values();
  std::vector<int> concat_member(nv, 0);  // how many elided Concats use the value (in or out)
  std::vector<int> concat_output(nv, 0);  // ... as their output
  std::vector<std::vector<NodeId>> concats_reading(nv);
  std::vector<bool> view_source(nv, false);
  for (NodeId e : plan.elided) {
    const Node& node = g.node(e);
    if (IsViewOp(node.op)) {
      view_source[static_cast<size_t>(node.inputs[0])] = true;
      continue;
    }
    for (ValueId x : node.inputs) {
      concat_member[static_cast<size_t>(x)]++;
      concats_reading[static_cast<size_t>(x)].push_back(e);
    }
    concat_member[static_cast<size_t>(node.outputs[0])]++;
    concat_output[static_cast<size_t>(node.outputs[0])]++;
  }
  for (size_t v = 0; v < nv; ++v) {
    const auto id = static_cast<ValueId>(v);
    // A part of several elided Concats only where they nest: the inputs of each are the
    // leading inputs of the next larger one (DenseNet's growing concatenations), so every
    // smaller output is a prefix of the largest buffer and no two parts overlap. Parts shared
    // any other way could put two written values on the same bytes; an output is never also
    // a part.
    if (concat_member[v] > 1) {
      auto concats = concats_reading[v];
      std::sort(concats.begin(), concats.end(), [&](NodeId a, NodeId b) {
        return g.node(a).inputs.size() < g.node(b).inputs.size();
      });
      bool nested = concat_output[v] == 0;
      for (size_t i = 0; nested && i + 1 < concats.size(); ++i) {
        const auto& small = g.node(concats[i]).inputs;
        const auto& large = g.node(concats[i + 1]).inputs;
        nested = std::equal(small.begin(), small.end(), large.begin());
      }
      if (!nested) {
        return InvalidArgument("memory plan puts " + ValueText(g, id) + " in two Concat buffers");
      }
    }
    // A view's source is read through the view only, so it cannot be overwritten behind it.
    if (view_source[v] && Readers(g, id).size() != 1) {
      return InvalidArgument("memory plan views " + ValueText(g, id) +
                             ", which other nodes read too");
    }
    const ValueId u = plan.inplace_of[v];
    if (u == kNoValue) continue;
    const NodeId p = g.value(id).producer;
    if (concat_member[v] || concat_member[static_cast<size_t>(u)]) {
      if (!(groups.elided[static_cast<size_t>(p)] && IsViewOp(g.node(p).op)) ||
          concat_member[v]) {
        return InvalidArgument("memory plan aliases Concat slice or output " + ValueText(g, id) +
                               " in place");
      }
    }
    if (groups.elided[static_cast<size_t>(p)]) continue;  // a view: nothing is overwritten
    for (NodeId r : Readers(g, u)) {
      if (r != p && !hb.Before(r, p)) {
        return InvalidArgument("memory plan lets node '" + g.node(p).name + "' overwrite " +
                               ValueText(g, u) + " while node '" + g.node(r).name +
                               "' may still read it");
      }
    }
  }
  return Status::Ok();
}

bool GroupBefore(const BufferGroups& groups, const HappensBefore& hb, size_t num_nodes,
                 int32_t a, int32_t b) {
  NodeSet acc(num_nodes);
  for (NodeId n : groups.accesses[static_cast<size_t>(a)]) acc.Insert(n);
  for (NodeId w : groups.writes[static_cast<size_t>(b)]) {
    if (!acc.SubsetOf(hb.Predecessors(w))) return false;
  }
  return true;
}

Status CheckNoOverlap(const Graph& g, const MemoryPlan&, const HappensBefore& hb,
                      const BufferGroups& groups) {
  const size_t count = groups.members.size();
  std::vector<int32_t> order(count);
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](int32_t x, int32_t y) {
    return groups.begin[static_cast<size_t>(x)] < groups.begin[static_cast<size_t>(y)];
  });
  for (size_t i = 0; i < count; ++i) {
    const auto a = static_cast<size_t>(order[i]);
    for (size_t j = i + 1; j < count; ++j) {
      const auto b = static_cast<size_t>(order[j]);
      if (groups.begin[b] >= groups.end[a]) break;  // sorted by begin: no later one overlaps a
      if (GroupBefore(groups, hb, g.num_nodes(), order[i], order[j]) ||
          GroupBefore(groups, hb, g.num_nodes(), order[j], order[i])) {
        continue;
      }
      return InvalidArgument("memory plan overlaps " +
                             ValueText(g, groups.members[a][0]) + " and " +
                             ValueText(g, groups.members[b][0]) +
                             ", which may be live at the same time");
    }
  }
  return Status::Ok();
}

Status CheckArenaSize(const Graph& g, const MemoryPlan& plan) {
  uint64_t end = 0;  // the furthest byte a planned value reaches
  for (size_t v = 0; v < g.num_values() && v < plan.offsets.size(); ++v) {
    if (plan.offsets[v] < 0) continue;
    end = std::max(end, static_cast<uint64_t>(plan.offsets[v]) +
                            g.value(static_cast<ValueId>(v)).byte_size());
  }
  const uint64_t a = MemoryPlan::kAlignment;
  const uint64_t needed = (end + a - 1) / a * a;
  if (plan.arena_bytes > needed) {
    return InvalidArgument("memory plan asks for a " + std::to_string(plan.arena_bytes) +
                           "-byte arena; its values reach only " + std::to_string(end) + " bytes");
  }
  return Status::Ok();
}

}  // namespace kiln
