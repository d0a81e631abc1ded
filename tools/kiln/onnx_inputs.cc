// Checking user-supplied tensors against an ONNX or TFLite file's declared graph inputs.
#include "tools/kiln/onnx_inputs.h"

#include "parsers/tflite/tflite_parser.h"

namespace kiln::cli {

Expected<std::vector<DeclaredInput>> ReadDeclaredInputs(const std::string& model) {
  if (!IsTfliteFile(model)) return ReadOnnxDeclaredInputs(model);
  KILN_ASSIGN_OR_RETURN(std::vector<TfliteDeclaredInput> tflite, ReadTfliteDeclaredInputs(model));
  std::vector<DeclaredInput> out;
  for (TfliteDeclaredInput& t : tflite) {
    DeclaredInput d;
    d.name = std::move(t.name);
    d.dtype = t.dtype;
    d.onnx_type = std::move(t.tflite_type);
    d.has_shape = true;
    d.dims = std::move(t.dims);
    out.push_back(std::move(d));
  }
  return out;
}

Expected<std::vector<std::string>> ReadDeclaredInputNames(const std::string& model) {
  KILN_ASSIGN_OR_RETURN(std::vector<DeclaredInput> declared, ReadDeclaredInputs(model));
  std::vector<std::string> names;
  for (const DeclaredInput& d : declared) names.push_back(d.name);
  return names;
}

std::string DeclaredShapeText(const DeclaredInput& in) {
  if (!in.has_shape) return "[unknown rank]";
  std::string s = "[";
  for (size_t i = 0; i < in.dims.size(); ++i) {
    if (i) s += ',';
    s += in.dims[i] < 0 ? std::string("?") : std::to_string(in.dims[i]);
  }
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
