// The unified IR: a graph of nodes over values (tensors). Constants are values holding bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/attribute.h"
#include "ir/constant_bytes.h"
#include "ir/dtype.h"
#include "ir/layout.h"
#include "ir/op_type.h"
#include "ir/quant_params.h"
#include "ir/shape.h"
#include "ir/status.h"

namespace kiln {

using ValueId = int32_t;
using NodeId = int32_t;
constexpr ValueId kNoValue = -1;  // an omitted optional input
constexpr NodeId kNoNode = -1;

struct Value {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  bool shape_known = false;  // false until shape inference has run for it
  Layout layout = Layout::kPlain;
  QuantParams quant;
  std::optional<ConstantBytes> constant;  // set for initializers and folded values
  NodeId producer = kNoNode;

  bool is_constant() const { return constant.has_value(); }
  int64_t num_elements() const { return NumElements(shape); }
  // Bytes in memory, layout padding included.
  size_t byte_size() const { return LayoutByteSize(layout, dtype, shape); }
};

// Names of executors a node may be placed on. Stable strings, also used in files.
inline constexpr const char* kExecutorCpu = "cpu";
inline constexpr const char* kExecutorOpenCL = "opencl";
inline constexpr const char* kExecutorDsp = "dsp";

struct Node {
  std::string name;
  OpType op = OpType::kUnknown;
  int64_t opset = 0;                  // opset the node was imported at (for messages)
  std::vector<ValueId> inputs;        // kNoValue for omitted optional inputs
  std::vector<ValueId> outputs;       // kNoValue for unused optional outputs
  Attributes attrs;
  std::string placement;              // executor name; empty = not placed yet
  // Provenance: the source-model (ONNX) node names this node came from, through every pass.
  // Graph::AddNode fills it with the node's own name when empty.
  std::vector<std::string> sources;
};

// "node 'conv1' (FusedConv, from ONNX nodes Conv_0, Relu_1)": how errors and reports name a
// node, with its provenance when it says more than the name.
std::string DescribeNode(const Node& node);

class Graph {
 public:
  // Adds a value; names must be unique (an empty name gets a generated one).
  ValueId AddValue(Value value);
  ValueId AddConstant(const std::string& name, DType dtype, Shape shape, ConstantBytes bytes);
  NodeId AddNode(Node node);  // sets producer of its outputs

  Value& value(ValueId id) { return values_[static_cast<size_t>(id)]; }
  const Value& value(ValueId id) const { return values_[static_cast<size_t>(id)]; }
  Node& node(NodeId id) { return nodes_[static_cast<size_t>(id)]; }
  const Node& node(NodeId id) const { return nodes_[static_cast<size_t>(id)]; }
  size_t num_values() const { return values_.size(); }
  size_t num_nodes() const { return nodes_.size(); }
  const std::vector<Value>& values() const { return values_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::vector<Node>& mutable_nodes() { return nodes_; }

  std::optional<ValueId> FindValue(const std::string& name) const;
  // Renames a value; the new name must be free (it is an error to reuse one).
  Status RenameValue(ValueId id, const std::string& name);
  // A name not yet used by any value, "<base>" or "<base>_N".
  std::string UniqueValueName(const std::string& base) const;

  std::vector<ValueId>& inputs() { return inputs_; }
  const std::vector<ValueId>& inputs() const { return inputs_; }
  std::vector<ValueId>& outputs() { return outputs_; }
  const std::vector<ValueId>& outputs() const { return outputs_; }

  std::string name;

  // Reorders nodes topologically (stable for already-sorted graphs); fails on a cycle.
  Status SortTopologically();
  // Drops nodes whose outputs nobody uses and values nobody references; renumbers ids.
  void RemoveDeadNodesAndValues();
  // Keeps exactly the nodes in `order`, in that order, and the values still referenced (by a
  // kept node, or as a graph input or output); renumbers value and node ids.
  void Compact(const std::vector<NodeId>& order);
  // Recomputes Value::producer from the nodes.
  void RebuildProducers();
  // Consumers (node ids) of every value, indexed by ValueId.
  std::vector<std::vector<NodeId>> BuildConsumers() const;

 private:
  std::vector<Value> values_;
  std::vector<Node> nodes_;
  std::vector<ValueId> inputs_;   // non-constant graph inputs, in order
  std::vector<ValueId> outputs_;
  std::unordered_map<std::string, ValueId> by_name_;
};

}  // namespace kiln
