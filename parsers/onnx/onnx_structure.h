// Structural validation of a decoded ONNX ModelProto, run before anything else reads it.
// Internal to parsers/onnx (includes the onnx headers).
#pragma once

#include <onnx/onnx_pb.h>

#include "ir/status.h"

namespace kiln {

// The newest ONNX IR version Kiln imports (ONNX 1.18+ writes 11).
inline constexpr int64_t kMaxOnnxIrVersion = 11;

// Checks what the importer relies on, so no later step (Kiln's or libonnx's) ever sees a
// malformed graph:
// - an IR version in 1..kMaxOnnxIrVersion, a graph, no sparse initializers;
// - names: graph inputs unique; initializers unique; every node output unique and distinct
//   from graph inputs and initializers (one definition per value); attribute names unique
//   within a node; no empty op_type;
// - every non-empty node input is defined (graph input, initializer or node output);
// - every graph output is defined and listed once;
// - every graph input has a tensor type with a known element type;
// - every embedded initializer's payload matches its dims and data type (external data is
//   checked when it is read).
// Errors are InvalidArgument (DataLoss for payload sizes) naming the offending value or node.
Status ValidateOnnxStructure(const onnx::ModelProto& model);

}  // namespace kiln
