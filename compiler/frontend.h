// The compiler's front end: ONNX or TFLite file -> verified Graph with static shapes, constants
// folded.
#pragma once

#include <string>

#include "ir/graph.h"
#include "parsers/onnx/onnx_parser.h"
#include "parsers/tflite/tflite_parser.h"

namespace kiln {

// ParseOnnxFile + PropagateShapesAndFold + VerifyGraph.
Expected<Graph> ImportOnnx(const std::string& path, const OnnxParseOptions& options);
// The same over serialized ModelProto bytes (external data relative to `base_dir`).
Expected<Graph> ImportOnnxBytes(const std::string& bytes, const std::string& base_dir,
                                const OnnxParseOptions& options);

// ParseTfliteFile + PropagateShapesAndFold + VerifyGraph.
Expected<Graph> ImportTflite(const std::string& path, const TfliteParseOptions& options);
// The same over the bytes of a .tflite file.
Expected<Graph> ImportTfliteBytes(std::span<const uint8_t> bytes,
                                  const TfliteParseOptions& options);

}  // namespace kiln
