// ONNX import: ModelProto -> Kiln Graph. Opsets 7..23 of ai.onnx and IR versions up to 11 are
// imported natively (structural validation, per-op version handling; libonnx only decodes the
// protobuf), with static input shapes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace kiln {

struct OnnxParseOptions {
  // Fixes symbolic/unknown dims of graph inputs (--input-shape NAME=D0,D1,...).
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Candidate values for graph inputs, matched by name. One is bound as a constant ONLY when
  // its input determines a shape: it feeds a schema value_input (e.g. Reshape's shape), directly
  // or through other ops (not through Shape/Size, which read only shapes); used by test
  // harnesses and `kiln validate`. Its shape also fixes the input's unknown dims when
  // input_shapes does not.
  std::vector<HostTensor> frozen_inputs;
  // Receives one-line notices (e.g. "input 'x': symbolic batch dim 'N' set to 1"); the CLI
  // prints them. Unset: notices are dropped.
  std::function<void(const std::string&)> notice;
};

// Parses an .onnx file; external data is resolved relative to the file's folder.
Expected<Graph> ParseOnnxFile(const std::string& path, const OnnxParseOptions& options);
// Parses serialized ModelProto bytes; `base_dir` is the folder external data is relative to.
Expected<Graph> ParseOnnxBytes(const std::string& bytes, const std::string& base_dir,
                               const OnnxParseOptions& options);

// A graph input as an .onnx file declares it, read before import so callers can check
// user-supplied tensors (name, dtype, fixed dims) and bind unnamed ones by position.
struct OnnxDeclaredInput {
  std::string name;
  DType dtype = DType::kUndefined;  // kUndefined when Kiln has no such dtype
  std::string onnx_type;            // "FLOAT", "DOUBLE", ... for messages
  bool has_shape = false;
  std::vector<int64_t> dims;  // -1 for symbolic/unknown dims
};

// The file's real graph inputs (initializers excluded), in order.
Expected<std::vector<OnnxDeclaredInput>> ReadOnnxDeclaredInputs(const std::string& path);
// Just their names.
Expected<std::vector<std::string>> ReadOnnxInputNames(const std::string& path);

}  // namespace kiln
