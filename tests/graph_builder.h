// Builds small IR graphs for compiler tests (passes, planner, streams), with shapes inferred
// node by node, and runs graphs before/after a rewrite to compare their outputs.
#pragma once

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace kiln::testing {

class GraphBuilder {
 public:
  ValueId Input(const std::string& name, Shape shape, DType dtype = DType::kF32);
  // An f32 constant; `data` empty = deterministic pseudo-random values.
  ValueId Const(const std::string& name, Shape shape, std::vector<float> data = {});
  ValueId ConstI64(const std::string& name, Shape shape, std::vector<int64_t> data);
  // Adds a node (its name is also its output's name) and infers its output shape. Dies with
  // a gtest failure when inference fails.
  ValueId Op(OpType op, const std::string& name, std::vector<ValueId> inputs,
             Attributes attrs = {});
  // Like Op for several outputs.
  std::vector<ValueId> OpN(OpType op, const std::string& name, std::vector<ValueId> inputs,
                           size_t outputs, Attributes attrs = {});
  void Output(ValueId v) { graph_.outputs().push_back(v); }
  Graph& graph() { return graph_; }
  Graph Take() { return std::move(graph_); }

 private:
  Graph graph_;
  uint32_t seed_ = 1;
};

// Attributes from a list of (name, value) pairs.
Attributes Attrs(std::initializer_list<std::pair<std::string, AttrValue>> items);

// Random f32 inputs for every graph input (fixed seed).
std::vector<HostTensor> RandomInputs(const Graph& graph, uint32_t seed = 7);
// Runs the graph on the reference CPU executor (with `plan`, default when null).
std::vector<HostTensor> RunGraph(const Graph& graph, const std::vector<HostTensor>& inputs,
                                 std::shared_ptr<const ExecutionPlan> plan = nullptr,
                                 int threads = 1);
// gtest expectation: same dtypes/shapes and every element within tol (relative to max |x|).
void ExpectClose(const std::vector<HostTensor>& a, const std::vector<HostTensor>& b,
                 float tol = 1e-5f);

}  // namespace kiln::testing
