// Builds a Kiln Graph from a validated ONNX ModelProto whose inputs have static shapes.
// Internal to parsers/onnx (includes the onnx headers).
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace kiln {

struct GraphBuildOptions {
  std::string base_dir;                   // external data is relative to it
  int64_t opset = 0;                      // the model's ai.onnx opset (7..23)
  std::vector<HostTensor> frozen_inputs;  // bound only where they feed a schema value_input
};

// Initializers and Constant nodes become constant values; graph inputs that are initializers
// are constants; empty node names become "<op>_<index>". Every graph input must already have
// a fully static shape. Intermediate values get dtype hints from value_info (shape unknown).
// Every node then gets its opset's version handling (onnx_op_versions.h).
Expected<Graph> BuildGraph(const onnx::ModelProto& model, const GraphBuildOptions& options);

}  // namespace kiln
