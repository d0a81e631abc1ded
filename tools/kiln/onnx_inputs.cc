// Reading an ONNX file's declared graph inputs with the onnx protobuf classes.
#include "tools/kiln/onnx_inputs.h"

#include <onnx/onnx_pb.h>

#include <fstream>
#include <set>

#include "parsers/onnx/tensor_proto.h"

namespace kiln::cli {

Expected<std::vector<DeclaredInput>> ReadOnnxDeclaredInputs(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("model file '" + path + "' not found");
  onnx::ModelProto model;
  if (!model.ParseFromIstream(&in))
    return DataLoss(path + ": cannot parse as an ONNX model (truncated, corrupt or not ONNX)");
  std::set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  std::vector<DeclaredInput> out;
  for (const auto& vi : model.graph().input()) {
    if (inits.count(vi.name())) continue;
    DeclaredInput d;
    d.name = vi.name();
    if (vi.type().has_tensor_type()) {
      const auto& tt = vi.type().tensor_type();
      d.onnx_type = OnnxDataTypeName(tt.elem_type());
      auto dt = DTypeFromOnnx(tt.elem_type(), d.name);
      if (dt.ok()) d.dtype = *dt;
      d.has_shape = tt.has_shape();
      for (const auto& dim : tt.shape().dim())
        d.dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1);
    }
    out.push_back(std::move(d));
  }
  return out;
}

std::string DeclaredShapeText(const DeclaredInput& in) {
  if (!in.has_shape) return "[unknown rank]";
  std::string s = "[";
  for (size_t i = 0; i < in.dims.size(); ++i)
    s += (i ? "," : "") + (in.dims[i] < 0 ? std::string("?") : std::to_string(in.dims[i]));
  return s + "]";
}

Status CheckAgainstDeclared(const DeclaredInput& in, const HostTensor& t,
                            const std::string& source) {
  if (in.dtype != DType::kUndefined && t.dtype != in.dtype)
    return InvalidArgument(source + ": the tensor is " + std::string(DTypeName(t.dtype)) +
                           " but model input '" + in.name + "' is " +
                           std::string(DTypeName(in.dtype)) + " (" + in.onnx_type + ")");
  if (!in.has_shape) return Status::Ok();
  bool ok = in.dims.size() == t.shape.size();
  for (size_t i = 0; ok && i < in.dims.size(); ++i) ok = in.dims[i] < 0 || in.dims[i] == t.shape[i];
  if (!ok)
    return InvalidArgument(source + ": the tensor has shape " + ShapeToString(t.shape) +
                           " but model input '" + in.name + "' expects " + DeclaredShapeText(in));
  return Status::Ok();
}

std::string InputNames(const std::vector<DeclaredInput>& inputs) {
  std::string s;
  for (const auto& in : inputs) s += (s.empty() ? "" : ", ") + in.name;
  return s.empty() ? "(none)" : s;
}

}  // namespace kiln::cli
