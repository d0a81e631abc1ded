// TFLite import driver: read, verify, check input shapes, import the main subgraph.
#include "parsers/tflite/tflite_parser.h"

#include <filesystem>
#include <fstream>

#include "parsers/tflite/tflite_importer.h"
#include "parsers/tflite/tflite_model.h"

namespace kiln {
namespace {

Expected<std::vector<uint8_t>> ReadFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return NotFound("TFLite model '" + path + "' not found (or not a regular file)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open TFLite model '" + path + "'");
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

Status CheckInputShapes(const tflite_import::TfliteModel& model,
                        const TfliteParseOptions& options) {
  const tflite::SubGraph& g = model.main_graph();
  std::map<std::string, std::vector<int64_t>> declared;
  if (g.inputs()) {
    for (int32_t i : *g.inputs()) {
      const tflite::Tensor& t = *g.tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
      KILN_ASSIGN_OR_RETURN(declared[tflite_import::TensorName(t, i)],
                            tflite_import::TensorShape(t, i));
    }
  }
  for (const auto& [name, dims] : options.input_shapes) {
    auto it = declared.find(name);
    if (it == declared.end()) {
      std::string names;
      for (const auto& d : declared) names += (names.empty() ? "" : ", ") + d.first;
      return InvalidArgument("--input-shape names '" + name +
                             "', but the model's inputs are: " + names);
    }
    if (it->second != dims) {
      return InvalidArgument("input '" + name + "' has static shape " + ShapeToString(it->second) +
                             " in the TFLite model; the given shape " + ShapeToString(dims) +
                             " differs (Kiln imports TFLite models at their declared shapes)");
    }
  }
  return Status::Ok();
}

}  // namespace

bool IsTfliteFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8] = {};
  if (in && in.read(head, 8) && std::string(head + 4, 4) == "TFL3") return true;
  return std::filesystem::path(path).extension() == ".tflite";
}

Expected<Graph> ParseTfliteBytes(std::span<const uint8_t> bytes,
                                 const TfliteParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(tflite_import::TfliteModel model, tflite_import::TfliteModel::Open(bytes));
  KILN_RETURN_IF_ERROR(CheckInputShapes(model, options));
  tflite_import::Importer importer(model);
  return importer.Run();
}

Expected<Graph> ParseTfliteFile(const std::string& path, const TfliteParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFile(path));
  auto g = ParseTfliteBytes(bytes, options);
  if (!g.ok()) return g.status().WithContext("'" + path + "'");
  return g;
}

Expected<std::vector<TfliteDeclaredInput>> ReadTfliteDeclaredInputs(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFile(path));
  auto model = tflite_import::TfliteModel::Open(bytes);
  if (!model.ok()) return model.status().WithContext("'" + path + "'");
  std::vector<TfliteDeclaredInput> out;
  const tflite::SubGraph& g = model->main_graph();
  if (!g.inputs()) return out;
  for (int32_t i : *g.inputs()) {
    const tflite::Tensor& t = *g.tensors()->Get(static_cast<flatbuffers::uoffset_t>(i));
    TfliteDeclaredInput d;
    d.name = tflite_import::TensorName(t, i);
    const char* type = tflite::EnumNameTensorType(t.type());
    d.tflite_type = type && *type ? type : std::to_string(static_cast<int>(t.type()));
    switch (t.type()) {
      case tflite::TensorType::FLOAT32:
        d.dtype = DType::kF32;
        break;
      case tflite::TensorType::FLOAT16:
        d.dtype = DType::kF16;
        break;
      case tflite::TensorType::INT8:
        d.dtype = DType::kI8;
        break;
      case tflite::TensorType::UINT8:
        d.dtype = DType::kU8;
        break;
      case tflite::TensorType::INT16:
        d.dtype = DType::kI16;
        break;
      case tflite::TensorType::INT32:
        d.dtype = DType::kI32;
        break;
      case tflite::TensorType::INT64:
        d.dtype = DType::kI64;
        break;
      case tflite::TensorType::BOOL:
        d.dtype = DType::kBool;
        break;
      default:
        break;
    }
    KILN_ASSIGN_OR_RETURN(d.dims, tflite_import::TensorShape(t, i));
    out.push_back(std::move(d));
  }
  return out;
}

Expected<int64_t> CountTfliteOperators(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadFile(path));
  KILN_ASSIGN_OR_RETURN(tflite_import::TfliteModel model, tflite_import::TfliteModel::Open(bytes));
  const auto* ops = model.main_graph().operators();
  return static_cast<int64_t>(ops ? ops->size() : 0);
}

}  // namespace kiln
