// The graph inputs an ONNX file declares (initializers excluded), read before import so the CLI
// can check user-supplied tensors by name, dtype and shape and say exactly what is wrong.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/status.h"

namespace kiln::cli {

struct DeclaredInput {
  std::string name;
  DType dtype = DType::kUndefined;  // kUndefined when Kiln has no such dtype
  std::string onnx_type;            // "FLOAT", "DOUBLE", ... for messages
  bool has_shape = false;
  std::vector<int64_t> dims;  // -1 for symbolic/unknown dims
};

Expected<std::vector<DeclaredInput>> ReadOnnxDeclaredInputs(const std::string& path);

// "[1,3,N,W]"-style text of the declared dims ('?' for symbolic).
std::string DeclaredShapeText(const DeclaredInput& in);

// Checks a tensor given for `in` (from `source`, e.g. "--input x=a.npy"): dtype, rank, fixed dims.
Status CheckAgainstDeclared(const DeclaredInput& in, const HostTensor& t,
                            const std::string& source);

// Comma-separated names, for "the model's inputs are: ..." messages.
std::string InputNames(const std::vector<DeclaredInput>& inputs);

}  // namespace kiln::cli
