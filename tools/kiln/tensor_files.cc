// Loading input tensors from .npy, .pb and image files for `kiln run` and `kiln validate`.
#include "tools/kiln/tensor_files.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "calibration/npy_io.h"
#include "parsers/onnx/tensor_proto.h"

namespace kiln::cli {
namespace {

std::string LowerExtension(const std::string& path) {
  std::string ext = std::filesystem::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

}  // namespace

Expected<TensorFileKind> DetectTensorFileKind(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return NotFound("input file '" + path + "' not found");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open input file '" + path + "'");
  unsigned char head[8] = {};
  in.read(reinterpret_cast<char*>(head), sizeof(head));
  const auto n = in.gcount();
  if (n >= 6 && std::memcmp(head, "\x93NUMPY", 6) == 0) return TensorFileKind::kNpy;
  if (n >= 8 && std::memcmp(head, "\x89PNG\r\n\x1a\n", 8) == 0) return TensorFileKind::kImage;
  if (n >= 3 && head[0] == 0xFF && head[1] == 0xD8 && head[2] == 0xFF)
    return TensorFileKind::kImage;
  if (n >= 4 && std::memcmp(head, "GIF8", 4) == 0) return TensorFileKind::kImage;
  if (n >= 2 && head[0] == 'B' && head[1] == 'M') return TensorFileKind::kImage;
  const std::string ext = LowerExtension(path);
  if (ext == ".pb") return TensorFileKind::kTensorProto;
  if (ext == ".npy") return TensorFileKind::kNpy;  // let the reader say what is wrong
  if (ext == ".png" || ext == ".jpg" || ext == ".jpeg") return TensorFileKind::kImage;
  return InvalidArgument("input file '" + path +
                         "' is neither .npy, an ONNX TensorProto (.pb) nor a JPEG/PNG image");
}

Expected<HostTensor> LoadTensorFile(const std::string& path, const PreprocessSpec& spec) {
  KILN_ASSIGN_OR_RETURN(TensorFileKind kind, DetectTensorFileKind(path));
  switch (kind) {
    case TensorFileKind::kNpy:
      return ReadNpyFile(path);
    case TensorFileKind::kTensorProto: {
      auto t = ReadTensorProtoFile(path);
      if (!t.ok()) return t.status().WithContext(path);
      return t;
    }
    case TensorFileKind::kImage:
      return LoadImageTensor(path, spec);
  }
  return Internal("unhandled tensor file kind");
}

std::string SanitizeFileName(const std::string& name) {
  std::string out;
  for (char c : name) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
    out += ok ? c : '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  if (out.size() > 200) out.resize(200);  // stay well under NAME_MAX with the .npy suffix
  return out;
}

}  // namespace kiln::cli
