// Static statistics of a graph for `kiln inspect`: I/O, op histogram, parameters and MACs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln {

struct TensorSummary {
  std::string name;
  DType dtype = DType::kUndefined;
  Shape shape;
  bool shape_known = false;
};

struct ModelStats {
  std::vector<TensorSummary> inputs, outputs;
  std::map<std::string, int64_t> op_histogram;  // ONNX op name -> node count
  int64_t num_nodes = 0;
  int64_t parameter_count = 0;  // elements of non-i64 constants that nodes read (weights)
  int64_t parameter_bytes = 0;
  // Multiply-accumulates of Conv, ConvTranspose, Gemm, MatMul and their fused forms (the
  // ops that dominate).
  int64_t macs = 0;
  // Nodes of those ops whose shapes were unknown, so `macs` is a lower bound when non-empty.
  std::vector<std::string> macs_unknown_nodes;
};

ModelStats ComputeModelStats(const Graph& graph);

// MACs of one node (0 for ops not counted); -1 when a needed shape is unknown.
int64_t NodeMacs(const Graph& graph, const Node& node);

}  // namespace kiln
