// Graph rewriting with use lists kept consistent, so that a compiler pass is a thin driver
// (MLIR's RewriterBase over Kiln's Graph). Node ids stay stable while a rewriter is open:
// erased nodes are tombstones and new nodes are appended; Commit() compacts the graph into
// a valid topological order.
//
//   GraphRewriter rw(graph);
//   ... rw.ReplaceAllUsesWith(old_out, new_out); rw.EraseNode(n); ...
//   KILN_RETURN_IF_ERROR(rw.Commit());
#pragma once

#include <optional>
#include <vector>

#include "ir/graph.h"

namespace kiln {

class GraphRewriter {
 public:
  struct Use {
    NodeId node;
    size_t index;  // input slot
  };

  explicit GraphRewriter(Graph& graph);

  Graph& graph() { return graph_; }
  const Graph& graph() const { return graph_; }
  Value& value(ValueId v) { return graph_.value(v); }
  const Value& value(ValueId v) const { return graph_.value(v); }
  Node& node(NodeId n) { return graph_.node(n); }
  const Node& node(NodeId n) const { return graph_.node(n); }
  // Nodes in the current order, erased ones excluded, inserted ones included (at the end).
  std::vector<NodeId> LiveNodes() const;

  // Queries.
  const std::vector<Use>& uses(ValueId v) const { return uses_[static_cast<size_t>(v)]; }
  bool IsGraphOutput(ValueId v) const;
  bool IsGraphInput(ValueId v) const;
  // Node uses plus graph-output uses.
  size_t NumUses(ValueId v) const;
  // The one node that reads `v`, when it is read exactly once and is no graph output.
  std::optional<NodeId> SoleUser(ValueId v) const;
  // The live node producing `v`, if any.
  std::optional<NodeId> Producer(ValueId v) const;
  bool IsErased(NodeId n) const { return erased_[static_cast<size_t>(n)]; }

  // Mutations.
  void SetInput(NodeId n, size_t slot, ValueId v);
  // Every node input and graph output reading `from` reads `to` instead. When `from` was a
  // graph output, `to` takes over its name (users address outputs by name) and `from` gets a
  // fresh one.
  void ReplaceAllUsesWith(ValueId from, ValueId to);
  // Removes a node; it is an error while any of its outputs is still used.
  Status EraseNode(NodeId n);
  // Adds `node`, to be placed just before `anchor` (kNoNode: at the end) in the committed
  // order. Its sources default to its own name; see MergeSources for fused nodes.
  NodeId InsertNode(Node node, NodeId anchor);
  ValueId AddValue(Value v);
  ValueId AddConstant(const std::string& name, DType dtype, Shape shape, ConstantBytes bytes);

  // The provenance of several nodes, in order and without repeats (for a fused node).
  std::vector<std::string> MergeSources(const std::vector<NodeId>& nodes) const;

  // Drops erased nodes and unreferenced values, puts inserted nodes before their anchors and
  // re-sorts topologically (stable). The rewriter must not be used afterwards.
  Status Commit();

 private:
  void AddUse(ValueId v, NodeId n, size_t slot);
  void RemoveUse(ValueId v, NodeId n, size_t slot);

  Graph& graph_;
  std::vector<std::vector<Use>> uses_;  // by value id
  std::vector<bool> erased_;            // by node id
  std::vector<NodeId> anchor_;          // by node id: kNoNode for original nodes
  size_t original_nodes_;
};

}  // namespace kiln
