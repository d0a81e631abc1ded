// Facts about an .onnx file read without importing it (for reports such as kiln inspect's
// source node count).
#pragma once

#include <cstdint>
#include <string>

#include "ir/status.h"

namespace kiln {

// Nodes in the main graph of the model at `path` (Constant nodes included).
Expected<int64_t> CountOnnxNodes(const std::string& path);

}  // namespace kiln
