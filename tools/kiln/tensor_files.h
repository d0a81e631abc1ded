// Tensor files for the CLI: load .npy / ONNX TensorProto .pb / images (JPEG, PNG) by content or
// extension, and make tensor names safe to use as file names.
#pragma once

#include <string>

#include "calibration/image_preprocess.h"
#include "ir/host_tensor.h"
#include "ir/status.h"

namespace kiln::cli {

enum class TensorFileKind { kNpy, kTensorProto, kImage };

// Sniffs the magic bytes (.npy, PNG, JPEG, GIF, BMP), else goes by extension (.pb).
Expected<TensorFileKind> DetectTensorFileKind(const std::string& path);

// Loads the file; images are decoded and preprocessed with `spec`.
Expected<HostTensor> LoadTensorFile(const std::string& path, const PreprocessSpec& spec);

// "conv1/out:0" -> "conv1_out_0": only [A-Za-z0-9._-] survive; never empty, "." or "..".
std::string SanitizeFileName(const std::string& name);

}  // namespace kiln::cli
