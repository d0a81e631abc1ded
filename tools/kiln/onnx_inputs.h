// Checks user-supplied tensors against the graph inputs an ONNX or TFLite file declares, so the
// CLI can say exactly what is wrong (name, dtype, shape) before import.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/status.h"
#include "parsers/onnx/onnx_parser.h"

namespace kiln::cli {

using DeclaredInput = OnnxDeclaredInput;  // read by parsers/onnx ReadOnnxDeclaredInputs

// The graph inputs a model file declares, in order: a TFLite file's (by content or extension),
// else an ONNX file's.
Expected<std::vector<DeclaredInput>> ReadDeclaredInputs(const std::string& model);
// Just their names.
Expected<std::vector<std::string>> ReadDeclaredInputNames(const std::string& model);

// "[1,3,N,W]"-style text of the declared dims ('?' for symbolic).
std::string DeclaredShapeText(const DeclaredInput& in);

// Checks a tensor given for `in` (from `source`, e.g. "--input x=a.npy"): dtype, rank, fixed dims.
Status CheckAgainstDeclared(const DeclaredInput& in, const HostTensor& t,
                            const std::string& source);

// Comma-separated names, for "the model's inputs are: ..." messages.
std::string InputNames(const std::vector<DeclaredInput>& inputs);

}  // namespace kiln::cli
