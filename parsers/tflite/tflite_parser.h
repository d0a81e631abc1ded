// TensorFlow Lite import: a .tflite file (schema version 3, the main subgraph) -> Kiln Graph.
// The FlatBuffer is verified before anything reads it. NHWC tensors keep their shapes at the
// graph's inputs and outputs; inside, layout-sensitive ops run in NCHW (tflite_importer.h).
// int8/uint8 models import in QDQ form with their own scales and zero points, which the
// compiler lowers to Kiln's integer ops (docs/quantization.md). Static shapes only.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "ir/graph.h"

namespace kiln {

struct TfliteParseOptions {
  // --input-shape NAME=D0,...: TFLite shapes are static, so a given shape must equal the
  // declared one (the option is accepted for a uniform command line).
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

// Whether `path` looks like a TFLite model: the 'TFL3' identifier at byte 4, or, for a file
// too short to tell, the .tflite extension.
bool IsTfliteFile(const std::string& path);

Expected<Graph> ParseTfliteFile(const std::string& path, const TfliteParseOptions& options);
// `bytes` must stay valid for the call only (constants are copied).
Expected<Graph> ParseTfliteBytes(std::span<const uint8_t> bytes, const TfliteParseOptions& options);

// A graph input as the model declares it, read before import so callers can check tensors.
struct TfliteDeclaredInput {
  std::string name;
  DType dtype = DType::kUndefined;  // kUndefined when Kiln has no such dtype
  std::string tflite_type;          // "FLOAT32", "INT8", ...
  std::vector<int64_t> dims;
};
Expected<std::vector<TfliteDeclaredInput>> ReadTfliteDeclaredInputs(const std::string& path);
// The number of operators of the main subgraph (the source node count of reports).
Expected<int64_t> CountTfliteOperators(const std::string& path);

}  // namespace kiln
