// The compiler's front end: ONNX file -> verified Graph with static shapes, constants folded.
#pragma once

#include <string>

#include "ir/graph.h"
#include "parsers/onnx/onnx_parser.h"

namespace kiln {

// ParseOnnxFile + PropagateShapesAndFold + VerifyGraph.
Expected<Graph> ImportOnnx(const std::string& path, const OnnxParseOptions& options);
// The same over serialized ModelProto bytes (external data relative to `base_dir`).
Expected<Graph> ImportOnnxBytes(const std::string& bytes, const std::string& base_dir,
                                const OnnxParseOptions& options);

}  // namespace kiln
