// The compiler's front end: ONNX file -> verified Graph with static shapes, constants folded.
#pragma once

#include <string>

#include "ir/graph.h"
#include "parsers/onnx/onnx_parser.h"

namespace kiln {

// ParseOnnxFile + PropagateShapesAndFold + VerifyGraph.
Expected<Graph> ImportOnnx(const std::string& path, const OnnxParseOptions& options);

}  // namespace kiln
