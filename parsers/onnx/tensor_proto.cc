// TensorProto -> HostTensor: dtype mapping, raw/typed/external payloads, bounds checks.
#include "parsers/onnx/tensor_proto.h"

#include <onnx/onnx_pb.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

namespace kiln {
namespace {

using onnx::TensorProto;

std::string Describe(const TensorProto& p) {
  return "tensor '" + (p.name().empty() ? std::string("<unnamed>") : p.name()) + "'";
}

// Reads `length` bytes at `offset` from `path` (length < 0: to the end of the file).
Expected<std::vector<uint8_t>> ReadFileRange(const std::string& path, int64_t offset,
                                             int64_t length, const std::string& what) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) return NotFound(what + ": external data file '" + path + "' not found");
  const auto file_size = static_cast<int64_t>(size);
  if (offset < 0 || offset > file_size) {
    return DataLoss(what + ": external data offset " + std::to_string(offset) + " is outside '" +
                    path + "' (" + std::to_string(file_size) + " bytes)");
  }
  if (length < 0) length = file_size - offset;
  if (length > file_size - offset) {
    return DataLoss(what + ": external data range [" + std::to_string(offset) + ", +" +
                    std::to_string(length) + ") runs past the end of '" + path + "' (" +
                    std::to_string(file_size) + " bytes)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound(what + ": cannot open external data file '" + path + "'");
  std::vector<uint8_t> bytes(static_cast<size_t>(length));
  in.seekg(offset);
  if (length > 0 && !in.read(reinterpret_cast<char*>(bytes.data()), length)) {
    return DataLoss(what + ": short read from '" + path + "'");
  }
  return bytes;
}

Expected<std::vector<uint8_t>> ReadExternal(const TensorProto& p, const std::string& base_dir) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& kv : p.external_data()) {
    try {
      if (kv.key() == "location") {
        location = kv.value();
      } else if (kv.key() == "offset") {
        offset = std::stoll(kv.value());
      } else if (kv.key() == "length") {
        length = std::stoll(kv.value());
      }
    } catch (const std::exception&) {
      return InvalidArgument(Describe(p) + ": bad external_data " + kv.key() + " '" + kv.value() +
                             "'");
    }
  }
  if (location.empty()) return InvalidArgument(Describe(p) + ": external data has no location");
  // The location must stay inside the model's folder: no absolute paths, no "..".
  const std::filesystem::path rel(location);
  if (rel.is_absolute()) {
    return InvalidArgument(Describe(p) + ": external data location '" + location +
                           "' must be relative to the model's folder");
  }
  for (const auto& part : rel) {
    if (part == "..") {
      return InvalidArgument(Describe(p) + ": external data location '" + location +
                             "' leaves the model's folder");
    }
  }
  const std::string path = (std::filesystem::path(base_dir) / rel).string();
  return ReadFileRange(path, offset, length, Describe(p));
}

// Copies a typed repeated field into `out`, narrowing each element to T.
template <typename T, typename Field>
void CopyNarrowed(const Field& field, std::vector<uint8_t>& out) {
  out.resize(static_cast<size_t>(field.size()) * sizeof(T));
  T* dst = reinterpret_cast<T*>(out.data());
  for (int i = 0; i < field.size(); ++i) dst[i] = static_cast<T>(field.Get(i));
}

}  // namespace

std::string OnnxDataTypeName(int32_t onnx_type) {
  if (onnx::TensorProto_DataType_IsValid(onnx_type)) {
    return onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(onnx_type));
  }
  // Types added after Debian's onnx 1.12 (IR 9..11). The decoder keeps their numbers (the
  // fields are int32), so they reach DTypeFromOnnx and are refused by name.
  switch (onnx_type) {
    case 17:
      return "FLOAT8E4M3FN";
    case 18:
      return "FLOAT8E4M3FNUZ";
    case 19:
      return "FLOAT8E5M2";
    case 20:
      return "FLOAT8E5M2FNUZ";
    case 21:
      return "UINT4";
    case 22:
      return "INT4";
    case 23:
      return "FLOAT4E2M1";
    case 24:
      return "FLOAT8E8M0";
    case 25:
      return "UINT2";
    case 26:
      return "INT2";
    default:
      return "type " + std::to_string(onnx_type);
  }
}

Expected<DType> DTypeFromOnnx(int32_t onnx_type, const std::string& what) {
  switch (onnx_type) {
    case TensorProto::FLOAT:
      return DType::kF32;
    case TensorProto::FLOAT16:
      return DType::kF16;
    case TensorProto::INT8:
      return DType::kI8;
    case TensorProto::UINT8:
      return DType::kU8;
    case TensorProto::INT32:
      return DType::kI32;
    case TensorProto::INT64:
      return DType::kI64;
    case TensorProto::BOOL:
      return DType::kBool;
    default:
      return Unsupported(what + ": element type " + OnnxDataTypeName(onnx_type) +
                         " is not supported (Kiln supports FLOAT, FLOAT16, INT8, UINT8, INT32, "
                         "INT64, BOOL)");
  }
}

Expected<HostTensor> TensorProtoToHostTensor(const TensorProto& p, const std::string& base_dir) {
  const std::string what = Describe(p);
  KILN_ASSIGN_OR_RETURN(DType dtype, DTypeFromOnnx(p.data_type(), what));
  Shape shape;
  for (int64_t d : p.dims()) {
    if (d < 0) return InvalidArgument(what + ": negative dimension " + std::to_string(d));
    shape.push_back(d);
  }
  // Guard the element count before multiplying it out (hostile files can claim huge dims).
  int64_t count = 1;
  for (int64_t d : shape) {
    if (d != 0 && count > std::numeric_limits<int64_t>::max() / 8 / d) {
      return InvalidArgument(what + ": shape " + ShapeToString(shape) + " is too large");
    }
    count *= d;
  }
  const size_t expected = static_cast<size_t>(count) * DTypeSize(dtype);

  std::vector<uint8_t> bytes;
  if (p.data_location() == TensorProto::EXTERNAL) {
    KILN_ASSIGN_OR_RETURN(bytes, ReadExternal(p, base_dir));
  } else if (p.has_raw_data()) {
    bytes.assign(p.raw_data().begin(), p.raw_data().end());
  } else {
    switch (dtype) {
      case DType::kF32:
        bytes.resize(static_cast<size_t>(p.float_data_size()) * 4);
        if (!bytes.empty()) std::memcpy(bytes.data(), p.float_data().data(), bytes.size());
        break;
      case DType::kI64:
        bytes.resize(static_cast<size_t>(p.int64_data_size()) * 8);
        if (!bytes.empty()) std::memcpy(bytes.data(), p.int64_data().data(), bytes.size());
        break;
      case DType::kI32:
        CopyNarrowed<int32_t>(p.int32_data(), bytes);
        break;
      case DType::kF16:
        CopyNarrowed<uint16_t>(p.int32_data(), bytes);
        break;
      case DType::kI8:
        CopyNarrowed<int8_t>(p.int32_data(), bytes);
        break;
      case DType::kU8:
        CopyNarrowed<uint8_t>(p.int32_data(), bytes);
        break;
      case DType::kBool:
        CopyNarrowed<uint8_t>(p.int32_data(), bytes);
        break;
      case DType::kI16:  // not mapped from ONNX (OnnxDType refuses INT16)
      case DType::kUndefined:
        break;
    }
  }
  if (bytes.size() != expected) {
    return DataLoss(what + ": holds " + std::to_string(bytes.size()) + " bytes of data, but " +
                    std::string(DTypeName(dtype)) + " " + ShapeToString(shape) + " needs " +
                    std::to_string(expected));
  }
  if (dtype == DType::kBool) {
    for (uint8_t& b : bytes) b = b ? 1 : 0;  // normalise: Kiln bools are exactly 0 or 1
  }
  HostTensor t;
  t.name = p.name();
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.bytes = std::move(bytes);
  return t;
}

Status InlineExternalData(TensorProto& p, const std::string& base_dir) {
  if (p.data_location() != TensorProto::EXTERNAL) return Status::Ok();
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, ReadExternal(p, base_dir));
  p.set_raw_data(std::string(bytes.begin(), bytes.end()));
  p.clear_external_data();
  p.set_data_location(TensorProto::DEFAULT);
  return Status::Ok();
}

Expected<HostTensor> ReadTensorProtoFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open tensor file '" + path + "'");
  std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  TensorProto proto;
  if (!proto.ParseFromString(data)) {
    return DataLoss("'" + path + "' is not a valid ONNX TensorProto (truncated or corrupt)");
  }
  const std::string dir = std::filesystem::path(path).parent_path().string();
  auto t = TensorProtoToHostTensor(proto, dir.empty() ? "." : dir);
  if (!t.ok()) return t.status().WithContext("'" + path + "'");
  return t;
}

Expected<std::vector<HostTensor>> ReadTensorProtoSet(const std::string& dir,
                                                     const std::string& prefix) {
  std::vector<HostTensor> tensors;
  for (int i = 0;; ++i) {
    const std::filesystem::path file =
        std::filesystem::path(dir) / (prefix + std::to_string(i) + ".pb");
    if (!std::filesystem::exists(file)) return tensors;
    KILN_ASSIGN_OR_RETURN(HostTensor t, ReadTensorProtoFile(file.string()));
    tensors.push_back(std::move(t));
  }
}

}  // namespace kiln
