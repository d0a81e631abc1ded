// The happens-before order of a schedule: node a happens before node b when b's stream, or an
// event chain across streams, makes b wait for a to finish. Bitsets over node ids, computed
// in one sweep of the graph order (which every stream follows).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/execution_plan.h"

namespace kiln {

class NodeSet {
 public:
  explicit NodeSet(size_t n = 0) : words_((n + 63) / 64, 0) {}
  void Insert(NodeId n) { words_[static_cast<size_t>(n) / 64] |= uint64_t{1} << (n % 64); }
  bool Contains(NodeId n) const {
    return (words_[static_cast<size_t>(n) / 64] >> (n % 64)) & 1;
  }
  void UnionWith(const NodeSet& o) {
    for (size_t i = 0; i < words_.size(); ++i) words_[i] |= o.words_[i];
  }
  // Every member of *this is in `o`.
  bool SubsetOf(const NodeSet& o) const {
    for (size_t i = 0; i < words_.size(); ++i) {
      if (words_[i] & ~o.words_[i]) return false;
    }
    return true;
  }

 private:
  std::vector<uint64_t> words_;
};

class HappensBefore {
 public:
  // Needs a structurally valid schedule (streams in range, events forward in graph order):
  // ValidateExecutionPlan checks that first.
  HappensBefore(const Graph& graph, const Schedule& schedule);
  // a finished before b started (a != b).
  bool Before(NodeId a, NodeId b) const { return before_[static_cast<size_t>(b)].Contains(a); }
  const NodeSet& Predecessors(NodeId b) const { return before_[static_cast<size_t>(b)]; }

 private:
  std::vector<NodeSet> before_;  // by node: every node that happens before it
};

}  // namespace kiln
