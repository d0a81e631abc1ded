// Builds a Kiln Graph from a canonical (opset-17, static-input-shape) ONNX ModelProto.
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
  int64_t source_opset = 0;               // the model's original opset (node messages)
  std::vector<HostTensor> frozen_inputs;  // bound only where they feed a schema value_input
};

// Initializers and Constant nodes become constant values; graph inputs that are initializers
// are constants; empty node names become "<op>_<index>". Every graph input must already have
// a fully static shape. Intermediate values get dtype hints from value_info (shape unknown).
Expected<Graph> BuildGraph(const onnx::ModelProto& model, const GraphBuildOptions& options);

}  // namespace kiln
