// GraphRewriter: use lists, tombstones and anchored insertion over a Graph.
#include "ir/rewriter.h"

#include <algorithm>
#include <functional>

namespace kiln {

GraphRewriter::GraphRewriter(Graph& graph) : graph_(graph) {
  graph_.RebuildProducers();
  uses_.resize(graph_.num_values());
  original_nodes_ = graph_.num_nodes();
  erased_.assign(original_nodes_, false);
  anchor_.assign(original_nodes_, kNoNode);
  for (size_t n = 0; n < graph_.num_nodes(); ++n) {
    const Node& node = graph_.node(static_cast<NodeId>(n));
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      if (node.inputs[i] != kNoValue) AddUse(node.inputs[i], static_cast<NodeId>(n), i);
    }
  }
}

std::vector<NodeId> GraphRewriter::LiveNodes() const {
  std::vector<NodeId> out;
  for (size_t n = 0; n < graph_.num_nodes(); ++n) {
    if (!erased_[n]) out.push_back(static_cast<NodeId>(n));
  }
  return out;
}

bool GraphRewriter::IsGraphOutput(ValueId v) const {
  const auto& outs = graph_.outputs();
  return std::find(outs.begin(), outs.end(), v) != outs.end();
}

bool GraphRewriter::IsGraphInput(ValueId v) const {
  const auto& ins = graph_.inputs();
  return std::find(ins.begin(), ins.end(), v) != ins.end();
}

size_t GraphRewriter::NumUses(ValueId v) const {
  size_t n = uses(v).size();
  for (ValueId out : graph_.outputs()) n += out == v;
  return n;
}

std::optional<NodeId> GraphRewriter::SoleUser(ValueId v) const {
  if (uses(v).size() != 1 || IsGraphOutput(v)) return std::nullopt;
  return uses(v)[0].node;
}

std::optional<NodeId> GraphRewriter::Producer(ValueId v) const {
  const NodeId p = graph_.value(v).producer;
  if (p == kNoNode || erased_[static_cast<size_t>(p)]) return std::nullopt;
  return p;
}

void GraphRewriter::AddUse(ValueId v, NodeId n, size_t slot) {
  uses_[static_cast<size_t>(v)].push_back({n, slot});
}

void GraphRewriter::RemoveUse(ValueId v, NodeId n, size_t slot) {
  auto& list = uses_[static_cast<size_t>(v)];
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (it->node == n && it->index == slot) {
      list.erase(it);
      return;
    }
  }
}

void GraphRewriter::SetInput(NodeId n, size_t slot, ValueId v) {
  Node& node = graph_.node(n);
  if (slot >= node.inputs.size()) node.inputs.resize(slot + 1, kNoValue);
  if (node.inputs[slot] != kNoValue) RemoveUse(node.inputs[slot], n, slot);
  node.inputs[slot] = v;
  if (v != kNoValue) AddUse(v, n, slot);
}

void GraphRewriter::ReplaceAllUsesWith(ValueId from, ValueId to) {
  if (from == to) return;
  const std::vector<Use> old = uses(from);
  for (const Use& u : old) SetInput(u.node, u.index, to);
  bool was_output = false;
  for (ValueId& out : graph_.outputs()) {
    if (out == from) {
      out = to;
      was_output = true;
    }
  }
  if (was_output) {
    // The output keeps its public name: swap names through a fresh one.
    const std::string public_name = graph_.value(from).name;
    const std::string spare = graph_.UniqueValueName(public_name + ".replaced");
    Status ok = graph_.RenameValue(from, spare);
    if (ok.ok()) ok = graph_.RenameValue(to, public_name);
    (void)ok;  // both names were free by construction
  }
}

Status GraphRewriter::EraseNode(NodeId n) {
  Node& node = graph_.node(n);
  for (ValueId out : node.outputs) {
    if (out != kNoValue && NumUses(out) > 0) {
      return Internal("cannot erase node '" + node.name + "': its output '" +
                      graph_.value(out).name + "' is still used");
    }
  }
  for (size_t i = 0; i < node.inputs.size(); ++i) {
    if (node.inputs[i] != kNoValue) RemoveUse(node.inputs[i], n, i);
  }
  for (ValueId out : node.outputs) {
    if (out != kNoValue && graph_.value(out).producer == n) graph_.value(out).producer = kNoNode;
  }
  erased_[static_cast<size_t>(n)] = true;
  return Status::Ok();
}

NodeId GraphRewriter::InsertNode(Node node, NodeId anchor) {
  const NodeId id = graph_.AddNode(std::move(node));
  erased_.push_back(false);
  anchor_.push_back(anchor);
  const Node& added = graph_.node(id);
  for (size_t i = 0; i < added.inputs.size(); ++i) {
    if (added.inputs[i] != kNoValue) AddUse(added.inputs[i], id, i);
  }
  return id;
}

ValueId GraphRewriter::AddValue(Value v) {
  const ValueId id = graph_.AddValue(std::move(v));
  uses_.resize(graph_.num_values());
  return id;
}

ValueId GraphRewriter::AddConstant(const std::string& name, DType dtype, Shape shape,
                                   ConstantBytes bytes) {
  const ValueId id =
      graph_.AddConstant(graph_.UniqueValueName(name), dtype, std::move(shape), std::move(bytes));
  uses_.resize(graph_.num_values());
  return id;
}

std::vector<std::string> GraphRewriter::MergeSources(const std::vector<NodeId>& nodes) const {
  std::vector<std::string> out;
  for (NodeId n : nodes) {
    for (const std::string& s : graph_.node(n).sources) {
      if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
    }
  }
  return out;
}

Status GraphRewriter::Commit() {
  const size_t total = graph_.num_nodes();
  std::vector<std::vector<NodeId>> before(total);  // inserted nodes by anchor
  std::vector<NodeId> at_end;
  for (size_t n = original_nodes_; n < total; ++n) {
    const NodeId a = anchor_[n];
    (a == kNoNode ? at_end : before[static_cast<size_t>(a)]).push_back(static_cast<NodeId>(n));
  }
  std::vector<NodeId> order;
  order.reserve(total);
  std::function<void(NodeId)> emit = [&](NodeId n) {
    for (NodeId b : before[static_cast<size_t>(n)]) emit(b);
    if (!erased_[static_cast<size_t>(n)]) order.push_back(n);
  };
  for (size_t n = 0; n < original_nodes_; ++n) emit(static_cast<NodeId>(n));
  for (NodeId n : at_end) emit(n);
  graph_.Compact(order);
  return graph_.SortTopologically();
}

}  // namespace kiln
