// CountOnnxNodes: protobuf decode of the file, no checks or import.
#include "parsers/onnx/onnx_model_info.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <iterator>

namespace kiln {

Expected<int64_t> CountOnnxNodes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open ONNX model '" + path + "'");
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) return DataLoss("'" + path + "' is not a valid ONNX model");
  return static_cast<int64_t>(model.graph().node_size());
}

}  // namespace kiln
