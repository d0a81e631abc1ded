// Op schemas: arity, which inputs must be constant (static shapes), and dtype/shape inference.
// Shape code lives here, never in kernels.
#pragma once

#include <vector>

#include "ir/graph.h"

namespace kiln {

// What an inference function sees: one node, its inputs' dtypes/shapes/constant bytes, and
// the output slots to fill.
class InferenceContext {
 public:
  InferenceContext(const Graph& graph, const Node& node) : graph_(graph), node_(node) {
    outputs_.resize(node.outputs.size());
  }
  const Node& node() const { return node_; }
  const Attributes& attrs() const { return node_.attrs; }
  size_t num_inputs() const { return node_.inputs.size(); }
  size_t num_outputs() const { return node_.outputs.size(); }
  bool has_input(size_t i) const { return i < node_.inputs.size() && node_.inputs[i] != kNoValue; }
  bool has_output(size_t i) const {
    return i < node_.outputs.size() && node_.outputs[i] != kNoValue;
  }
  const Value& input(size_t i) const { return graph_.value(node_.inputs[i]); }
  DType input_dtype(size_t i) const { return input(i).dtype; }
  const Shape& input_shape(size_t i) const { return input(i).shape; }
  // Constant bytes of input i, or nullptr when it is not a constant.
  const ConstantBytes* input_constant(size_t i) const {
    return has_input(i) && input(i).constant ? &*input(i).constant : nullptr;
  }
  // Reads an integer (i32/i64) constant input as int64s; error if not constant.
  Expected<std::vector<int64_t>> ConstantInts(size_t i) const;
  // Reads a float (f32/f16) constant input as floats; error if not constant.
  Expected<std::vector<float>> ConstantFloats(size_t i) const;

  void SetOutput(size_t i, DType dtype, Shape shape) {
    outputs_[i].dtype = dtype;
    outputs_[i].shape = std::move(shape);
    outputs_[i].set = true;
  }

  struct OutputInfo {
    DType dtype = DType::kUndefined;
    Shape shape;
    bool set = false;
  };
  const std::vector<OutputInfo>& outputs() const { return outputs_; }

 private:
  const Graph& graph_;
  const Node& node_;
  std::vector<OutputInfo> outputs_;
};

using InferFn = Status (*)(InferenceContext& ctx);

struct OpSchema {
  OpType op = OpType::kUnknown;
  int min_inputs = 0;
  int max_inputs = 0;
  int min_outputs = 1;
  int max_outputs = 1;
  // Inputs whose *values* determine output shapes (e.g. Reshape's shape): they must be
  // constant at compile time because Kiln's shapes are static.
  std::vector<int> value_inputs;
  InferFn infer = nullptr;
};

class SchemaRegistry {
 public:
  static const SchemaRegistry& Global();  // every op of OpType, registered explicitly
  void Register(OpSchema schema);
  const OpSchema* Find(OpType op) const;

 private:
  std::vector<OpSchema> schemas_;  // indexed by OpType value
};

// Family registration functions, listed (not static-initialized) in op_schema.cc.
void RegisterNnSchemas(SchemaRegistry& r);           // conv, pool, norm, gemm, resize, pad...
void RegisterElementwiseSchemas(SchemaRegistry& r);  // unary, binary, compare, logic, reduce...
void RegisterTensorSchemas(SchemaRegistry& r);       // reshape, concat, slice, gather...
void RegisterFusedSchemas(SchemaRegistry& r);        // the compiler's fused ops
void RegisterQuantizedSchemas(SchemaRegistry& r);    // the quantized integer ops

// Checks arity against the schema, then runs its inference and writes dtype/shape into the
// node's output values. Errors name the node and op.
Status InferNode(Graph& graph, NodeId node);

// Numpy-style multidirectional broadcast of two shapes.
Expected<Shape> BroadcastShapes(const Shape& a, const Shape& b);

}  // namespace kiln
