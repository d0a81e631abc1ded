// Graph construction, topological sort and dead-code removal.
#include "ir/graph.h"

#include <queue>

namespace kiln {

std::string DescribeNode(const Node& node) {
  std::string s = "node '" + node.name + "' (" + std::string(OpTypeName(node.op));
  if (!(node.sources.size() == 1 && node.sources[0] == node.name) && !node.sources.empty()) {
    s += ", from ONNX node" + std::string(node.sources.size() > 1 ? "s " : " ");
    for (size_t i = 0; i < node.sources.size(); ++i) s += (i ? ", " : "") + node.sources[i];
  }
  return s + ")";
}

ValueId Graph::AddValue(Value value) {
  if (value.name.empty()) value.name = "%" + std::to_string(values_.size());
  const auto id = static_cast<ValueId>(values_.size());
  by_name_[value.name] = id;
  values_.push_back(std::move(value));
  return id;
}

ValueId Graph::AddConstant(const std::string& name, DType dtype, Shape shape,
                           ConstantBytes bytes) {
  Value v;
  v.name = name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  v.shape_known = true;
  v.constant = std::move(bytes);
  return AddValue(std::move(v));
}

NodeId Graph::AddNode(Node node) {
  const auto id = static_cast<NodeId>(nodes_.size());
  if (node.sources.empty()) node.sources.push_back(node.name);
  for (ValueId out : node.outputs) {
    if (out != kNoValue) values_[static_cast<size_t>(out)].producer = id;
  }
  nodes_.push_back(std::move(node));
  return id;
}

std::optional<ValueId> Graph::FindValue(const std::string& name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

Status Graph::RenameValue(ValueId id, const std::string& name) {
  Value& v = values_[static_cast<size_t>(id)];
  if (v.name == name) return Status::Ok();
  if (name.empty() || by_name_.count(name)) {
    return InvalidArgument("cannot rename value '" + v.name + "' to '" + name +
                           "': the name is empty or taken");
  }
  by_name_.erase(v.name);
  v.name = name;
  by_name_[name] = id;
  return Status::Ok();
}

std::string Graph::UniqueValueName(const std::string& base) const {
  if (!by_name_.count(base)) return base;
  for (size_t i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!by_name_.count(candidate)) return candidate;
  }
}

void Graph::RebuildProducers() {
  for (auto& v : values_) v.producer = kNoNode;
  for (size_t n = 0; n < nodes_.size(); ++n) {
    for (ValueId out : nodes_[n].outputs) {
      if (out != kNoValue) values_[static_cast<size_t>(out)].producer = static_cast<NodeId>(n);
    }
  }
}

std::vector<std::vector<NodeId>> Graph::BuildConsumers() const {
  std::vector<std::vector<NodeId>> consumers(values_.size());
  for (size_t n = 0; n < nodes_.size(); ++n) {
    for (ValueId in : nodes_[n].inputs) {
      if (in != kNoValue) consumers[static_cast<size_t>(in)].push_back(static_cast<NodeId>(n));
    }
  }
  return consumers;
}

Status Graph::SortTopologically() {
  RebuildProducers();
  const size_t n = nodes_.size();
  std::vector<int> pending(n, 0);
  std::vector<std::vector<NodeId>> users(n);
  for (size_t i = 0; i < n; ++i) {
    for (ValueId in : nodes_[i].inputs) {
      if (in == kNoValue) continue;
      NodeId p = values_[static_cast<size_t>(in)].producer;
      if (p != kNoNode) {
        ++pending[i];
        users[static_cast<size_t>(p)].push_back(static_cast<NodeId>(i));
      }
    }
  }
  // Min-heap on original index keeps the existing order when it is already valid.
  std::priority_queue<NodeId, std::vector<NodeId>, std::greater<>> ready;
  for (size_t i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push(static_cast<NodeId>(i));
  }
  std::vector<NodeId> order;
  order.reserve(n);
  while (!ready.empty()) {
    NodeId id = ready.top();
    ready.pop();
    order.push_back(id);
    for (NodeId u : users[static_cast<size_t>(id)]) {
      if (--pending[static_cast<size_t>(u)] == 0) ready.push(u);
    }
  }
  if (order.size() != n) {
    for (size_t i = 0; i < n; ++i) {
      if (pending[i] > 0) {
        return InvalidArgument("graph has a cycle through node '" + nodes_[i].name + "'");
      }
    }
  }
  std::vector<Node> sorted;
  sorted.reserve(n);
  for (NodeId id : order) sorted.push_back(std::move(nodes_[static_cast<size_t>(id)]));
  nodes_ = std::move(sorted);
  RebuildProducers();
  return Status::Ok();
}

void Graph::RemoveDeadNodesAndValues() {
  RebuildProducers();
  std::vector<bool> live_value(values_.size(), false);
  std::vector<bool> live_node(nodes_.size(), false);
  std::vector<ValueId> stack(outputs_.begin(), outputs_.end());
  while (!stack.empty()) {
    ValueId v = stack.back();
    stack.pop_back();
    if (v == kNoValue || live_value[static_cast<size_t>(v)]) continue;
    live_value[static_cast<size_t>(v)] = true;
    NodeId p = values_[static_cast<size_t>(v)].producer;
    if (p != kNoNode && !live_node[static_cast<size_t>(p)]) {
      live_node[static_cast<size_t>(p)] = true;
      for (ValueId in : nodes_[static_cast<size_t>(p)].inputs) stack.push_back(in);
    }
  }
  std::vector<NodeId> order;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (live_node[i]) order.push_back(static_cast<NodeId>(i));
  }
  Compact(order);
}

void Graph::Compact(const std::vector<NodeId>& order) {
  std::vector<bool> live_value(values_.size(), false);
  for (ValueId v : inputs_) live_value[static_cast<size_t>(v)] = true;
  for (ValueId v : outputs_) {
    if (v != kNoValue) live_value[static_cast<size_t>(v)] = true;
  }
  for (NodeId n : order) {
    const Node& node = nodes_[static_cast<size_t>(n)];
    for (ValueId v : node.inputs) {
      if (v != kNoValue) live_value[static_cast<size_t>(v)] = true;
    }
    for (ValueId v : node.outputs) {
      if (v != kNoValue) live_value[static_cast<size_t>(v)] = true;
    }
  }
  std::vector<ValueId> remap(values_.size(), kNoValue);
  std::vector<Value> kept_values;
  for (size_t i = 0; i < values_.size(); ++i) {
    if (!live_value[i]) continue;
    remap[i] = static_cast<ValueId>(kept_values.size());
    kept_values.push_back(std::move(values_[i]));
  }
  auto map = [&remap](ValueId& v) {
    if (v != kNoValue) v = remap[static_cast<size_t>(v)];
  };
  std::vector<Node> kept_nodes;
  kept_nodes.reserve(order.size());
  for (NodeId n : order) {
    Node node = std::move(nodes_[static_cast<size_t>(n)]);
    for (ValueId& v : node.inputs) map(v);
    for (ValueId& v : node.outputs) map(v);
    kept_nodes.push_back(std::move(node));
  }
  for (ValueId& v : inputs_) map(v);
  for (ValueId& v : outputs_) map(v);
  values_ = std::move(kept_values);
  nodes_ = std::move(kept_nodes);
  by_name_.clear();
  for (size_t i = 0; i < values_.size(); ++i) by_name_[values_[i].name] = static_cast<ValueId>(i);
  RebuildProducers();
}

}  // namespace kiln
