// ValidateOnnxStructure: names, definitions and payload sizes of a decoded ModelProto.
#include "parsers/onnx/onnx_structure.h"

#include <set>
#include <string>
#include <unordered_set>

#include "parsers/onnx/tensor_proto.h"

namespace kiln {
namespace {

using onnx::TensorProto;

std::string NodeLabel(const onnx::NodeProto& n, int index) {
  return "node '" + (n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name()) +
         "' (" + n.op_type() + ")";
}

// Element count of `dims`, refusing negative dims and counts beyond 2^62.
Expected<int64_t> ElementCount(const TensorProto& t, const std::string& what) {
  int64_t count = 1;
  for (int64_t d : t.dims()) {
    if (d < 0) return InvalidArgument(what + ": negative dimension " + std::to_string(d));
    if (d != 0 && count > (int64_t{1} << 62) / d) {
      return InvalidArgument(what + ": its dims hold more than 2^62 elements");
    }
    count *= d;
  }
  return count;
}

// Bytes per element of the ONNX data types an initializer can carry in raw_data; 0 for types
// without a fixed size (STRING) and for types unknown to Kiln's table.
int64_t OnnxTypeSize(int32_t type) {
  switch (type) {
    case TensorProto::FLOAT:
    case TensorProto::INT32:
    case TensorProto::UINT32:
      return 4;
    case TensorProto::UINT8:
    case TensorProto::INT8:
    case TensorProto::BOOL:
      return 1;
    case TensorProto::UINT16:
    case TensorProto::INT16:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      return 2;
    case TensorProto::INT64:
    case TensorProto::DOUBLE:
    case TensorProto::UINT64:
    case TensorProto::COMPLEX64:
      return 8;
    case TensorProto::COMPLEX128:
      return 16;
    case 17:  // FLOAT8E4M3FN (IR 9)
    case 18:  // FLOAT8E4M3FNUZ
    case 19:  // FLOAT8E5M2
    case 20:  // FLOAT8E5M2FNUZ
      return 1;
    default:
      return 0;  // STRING, 4-bit types (packed), unknown
  }
}

// The embedded payload (raw_data or the typed field of its type) holds exactly dims' count.
Status CheckInitializer(const TensorProto& t) {
  const std::string what = "initializer '" + t.name() + "'";
  if (t.data_type() == TensorProto::UNDEFINED) {
    return InvalidArgument(what + " has no data type");
  }
  KILN_ASSIGN_OR_RETURN(const int64_t count, ElementCount(t, what));
  if (t.data_location() == TensorProto::EXTERNAL) return Status::Ok();  // checked when read
  const int64_t size = OnnxTypeSize(t.data_type());
  if (t.has_raw_data()) {
    if (size == 0) return Status::Ok();  // DTypeFromOnnx refuses the type with its name
    if (static_cast<uint64_t>(t.raw_data().size()) !=
        static_cast<uint64_t>(count) * static_cast<uint64_t>(size)) {
      return DataLoss(what + " (" + OnnxDataTypeName(t.data_type()) + ", " + std::to_string(count) +
                      " elements) holds " + std::to_string(t.raw_data().size()) +
                      " bytes of raw data, expected " + std::to_string(count * size));
    }
    return Status::Ok();
  }
  int64_t held = -1;
  switch (t.data_type()) {
    case TensorProto::FLOAT:
      held = t.float_data_size();
      break;
    case TensorProto::INT64:
      held = t.int64_data_size();
      break;
    case TensorProto::DOUBLE:
      held = t.double_data_size();
      break;
    case TensorProto::UINT32:
    case TensorProto::UINT64:
      held = t.uint64_data_size();
      break;
    case TensorProto::STRING:
      held = t.string_data_size();
      break;
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::UINT16:
    case TensorProto::INT8:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
    case TensorProto::FLOAT16:
    case TensorProto::BFLOAT16:
      held = t.int32_data_size();
      break;
    default:
      return Status::Ok();  // newer types: DTypeFromOnnx refuses them by name
  }
  if (held != count) {
    return DataLoss(what + " (" + OnnxDataTypeName(t.data_type()) + ") declares " +
                    std::to_string(count) + " elements but holds " + std::to_string(held));
  }
  return Status::Ok();
}

}  // namespace

Status ValidateOnnxStructure(const onnx::ModelProto& model) {
  if (model.ir_version() <= 0) return InvalidArgument("ONNX model has no ir_version");
  if (model.ir_version() > kMaxOnnxIrVersion) {
    return Unsupported("model IR version " + std::to_string(model.ir_version()) +
                       " is newer than Kiln imports (1.." + std::to_string(kMaxOnnxIrVersion) +
                       ")");
  }
  if (!model.has_graph()) return DataLoss("not a valid ONNX model: it has no graph");
  const onnx::GraphProto& g = model.graph();
  if (g.sparse_initializer_size() > 0) {
    return Unsupported("sparse initializers ('" + g.sparse_initializer(0).values().name() +
                       "') are not supported");
  }

  std::unordered_set<std::string> inits, inputs, defined;
  for (const auto& t : g.initializer()) {
    if (t.name().empty()) return InvalidArgument("an initializer has no name");
    if (!inits.insert(t.name()).second) {
      return InvalidArgument("initializer '" + t.name() + "' is defined twice");
    }
    KILN_RETURN_IF_ERROR(CheckInitializer(t));
    defined.insert(t.name());
  }
  for (const auto& in : g.input()) {
    if (in.name().empty()) return InvalidArgument("a graph input has no name");
    if (!inputs.insert(in.name()).second) {
      return InvalidArgument("graph input '" + in.name() + "' is listed twice");
    }
    if (inits.count(in.name())) continue;  // an initializer's default value: its type is known
    if (!in.type().has_tensor_type()) {
      return Unsupported("graph input '" + in.name() + "' is not a tensor");
    }
    const int32_t t = in.type().tensor_type().elem_type();
    if (t == TensorProto::UNDEFINED) {
      return InvalidArgument("graph input '" + in.name() + "' has no element type");
    }
    defined.insert(in.name());
  }
  int index = 0;
  for (const auto& n : g.node()) {
    const std::string where = NodeLabel(n, index++);
    if (n.op_type().empty()) return InvalidArgument(where + ": node has no op_type");
    std::set<std::string> attr_names;
    for (const auto& a : n.attribute()) {
      if (!attr_names.insert(a.name()).second) {
        return InvalidArgument(where + ": attribute '" + a.name() + "' is given twice");
      }
    }
    for (const auto& out : n.output()) {
      if (out.empty()) continue;  // an omitted optional output
      if (!defined.insert(out).second) {
        return InvalidArgument(where + ": output '" + out + "' is already defined (by " +
                               (inputs.count(out)  ? "a graph input"
                                : inits.count(out) ? "an initializer"
                                                   : "another node") +
                               "); every value has exactly one definition");
      }
    }
  }
  index = 0;
  for (const auto& n : g.node()) {
    const std::string where = NodeLabel(n, index++);
    for (const auto& in : n.input()) {
      if (!in.empty() && !defined.count(in)) {
        return InvalidArgument(where + ": input '" + in +
                               "' is not defined by any node, initializer or graph input");
      }
    }
  }
  std::unordered_set<std::string> outputs;
  for (const auto& out : g.output()) {
    if (out.name().empty()) return InvalidArgument("a graph output has no name");
    if (!defined.count(out.name())) {
      return InvalidArgument("graph output '" + out.name() +
                             "' is not produced by any node, initializer or graph input");
    }
    if (!outputs.insert(out.name()).second) {
      return InvalidArgument("graph output '" + out.name() + "' is listed twice");
    }
  }
  return Status::Ok();
}

}  // namespace kiln
