// ONNX import driver: decode, structural validation, opset and op checks, static input
// shapes, graph building with per-op version handling. libonnx is used to decode the protobuf
// and to look up pre-opset-7 schemas, nothing else (no checker, no shape inference, no version
// converter: they assume a well-formed graph and stop at opset 17 / IR 8 in Debian's 1.12).
#include "parsers/onnx/onnx_parser.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "parsers/onnx/onnx_graph_builder.h"
#include "parsers/onnx/onnx_op_versions.h"
#include "parsers/onnx/onnx_quantized_import.h"
#include "parsers/onnx/onnx_structure.h"
#include "parsers/onnx/tensor_proto.h"

namespace kiln {
namespace {

bool IsDefaultDomain(const std::string& d) { return d.empty() || d == "ai.onnx"; }

// The default-domain opset; rejects versions Kiln does not import.
Expected<int64_t> DefaultOpset(const onnx::ModelProto& m) {
  int64_t opset = -1;
  for (const auto& imp : m.opset_import()) {
    if (IsDefaultDomain(imp.domain())) opset = imp.version();
  }
  if (opset < 0) {
    return InvalidArgument("model imports no opset of the default ONNX domain (ai.onnx)");
  }
  if (opset < 1 || opset > kMaxOnnxOpset) {
    return Unsupported("model uses opset " + std::to_string(opset) +
                       " of domain ai.onnx; Kiln imports opsets " + std::to_string(kMinOnnxOpset) +
                       ".." + std::to_string(kMaxOnnxOpset));
  }
  return opset;
}

// Opsets below 7 are accepted when every op the model uses has the same schema version at its
// opset as at opset 7 (e.g. Elu-6, Not-1 in ONNX's own node tests): then it has opset-7
// semantics and imports as such. Otherwise it is rejected naming the changed ops. (The schema
// lookup is libonnx 1.12's registry, which knows every opset up to 17.)
Expected<int64_t> EffectiveOpset(const onnx::ModelProto& m, int64_t opset) {
  if (opset >= kMinOnnxOpset) return opset;
  std::vector<std::string> changed;
  for (const auto& n : m.graph().node()) {
    const auto* old_schema =
        onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset), n.domain());
    const auto* new_schema =
        onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(kMinOnnxOpset), n.domain());
    if (!old_schema || !new_schema || old_schema->SinceVersion() != new_schema->SinceVersion()) {
      changed.push_back(n.op_type());
    }
  }
  if (!changed.empty()) {
    std::string list;
    for (size_t i = 0; i < changed.size() && i < 8; ++i) list += (i ? ", " : "") + changed[i];
    return Unsupported("model uses opset " + std::to_string(opset) +
                       " of domain ai.onnx; Kiln imports opsets " + std::to_string(kMinOnnxOpset) +
                       ".." + std::to_string(kMaxOnnxOpset) +
                       " (older models only when no op changed since; changed: " + list + ")");
  }
  return kMinOnnxOpset;
}

// One error listing every op Kiln cannot import, so users see the whole gap at once.
Status CheckOpsSupported(const onnx::ModelProto& m, int64_t opset) {
  std::vector<std::string> bad;
  int index = 0;
  for (const auto& n : m.graph().node()) {
    const std::string name =
        n.name().empty() ? n.op_type() + "_" + std::to_string(index) : n.name();
    ++index;
    if (!IsDefaultDomain(n.domain())) {
      bad.push_back(n.op_type() + " (node '" + name + "', domain '" + n.domain() + "')");
    } else if (!OpTypeFromName(n.op_type())) {
      bad.push_back(n.op_type() + " (node '" + name + "', opset " + std::to_string(opset) + ")");
    }
  }
  if (bad.empty()) return Status::Ok();
  std::string msg = "unsupported ops (" + std::to_string(bad.size()) + "): ";
  for (size_t i = 0; i < bad.size(); ++i) msg += (i ? "; " : "") + bad[i];
  return Unsupported(msg);
}

std::string DimsToString(const onnx::TensorShapeProto& s) {
  std::string out = "[";
  for (int i = 0; i < s.dim_size(); ++i) {
    if (i) out += ",";
    out += s.dim(i).has_dim_value() ? std::to_string(s.dim(i).dim_value())
                                    : (s.dim(i).dim_param().empty() ? "?" : s.dim(i).dim_param());
  }
  return out + "]";
}

// Writes a static shape into every graph input (initializers excluded), from
// options.input_shapes, else a frozen input's shape, else the model's own fixed dims.
Status FixInputShapes(onnx::ModelProto& m, const OnnxParseOptions& options) {
  onnx::GraphProto* g = m.mutable_graph();
  std::set<std::string> inits;
  for (const auto& t : g->initializer()) inits.insert(t.name());
  std::string names;
  std::set<std::string> real_inputs;
  for (const auto& in : g->input()) {
    if (inits.count(in.name())) continue;
    real_inputs.insert(in.name());
    names += (names.empty() ? "" : ", ") + in.name();
  }
  for (const auto& [name, dims] : options.input_shapes) {
    if (!real_inputs.count(name)) {
      return InvalidArgument("--input-shape names '" + name +
                             "', but the model's inputs are: " + names);
    }
  }
  for (auto& in : *g->mutable_input()) {
    if (inits.count(in.name())) continue;
    if (!in.type().has_tensor_type()) {
      return Unsupported("graph input '" + in.name() + "' is not a tensor");
    }
    auto* tt = in.mutable_type()->mutable_tensor_type();
    const std::vector<int64_t>* given = nullptr;
    if (auto it = options.input_shapes.find(in.name()); it != options.input_shapes.end()) {
      given = &it->second;
    } else {
      for (const auto& f : options.frozen_inputs) {
        if (f.name == in.name()) given = &f.shape;
      }
    }
    if (given) {
      if (tt->has_shape() && tt->shape().dim_size() != static_cast<int>(given->size())) {
        return InvalidArgument(
            "input '" + in.name() + "' has rank " + std::to_string(tt->shape().dim_size()) + " " +
            DimsToString(tt->shape()) + ", but the given shape " + ShapeToString(*given) +
            " has rank " + std::to_string(given->size()));
      }
      for (size_t i = 0; i < given->size(); ++i) {
        const int64_t d = (*given)[i];
        if (d < 0) {
          return InvalidArgument("input '" + in.name() + "': given dim " + std::to_string(i) +
                                 " is negative");
        }
        if (tt->has_shape() && tt->shape().dim(static_cast<int>(i)).has_dim_value() &&
            tt->shape().dim(static_cast<int>(i)).dim_value() != d) {
          return InvalidArgument("input '" + in.name() + "' has fixed shape " +
                                 DimsToString(tt->shape()) + "; the given shape " +
                                 ShapeToString(*given) + " differs at dim " + std::to_string(i));
        }
      }
      tt->clear_shape();
      auto* s = tt->mutable_shape();
      for (int64_t d : *given) s->add_dim()->set_dim_value(d);
      continue;
    }
    if (!tt->has_shape()) {
      return InvalidArgument("input '" + in.name() + "' has unknown rank; pass --input-shape " +
                             in.name() + "=D0,D1,...");
    }
    for (int i = 0; i < tt->shape().dim_size(); ++i) {
      auto* d = tt->mutable_shape()->mutable_dim(i);
      // A symbolic leading dim of a rank >= 2 input is the batch: compile for batch 1.
      if (i == 0 && tt->shape().dim_size() >= 2 && !d->has_dim_value() && !d->dim_param().empty()) {
        if (options.notice) {
          options.notice("input '" + in.name() + "': symbolic batch dim 0 ('" + d->dim_param() +
                         "') set to 1 (pass --input-shape " + in.name() +
                         "=D0,D1,... for another size)");
        }
        d->set_dim_value(1);
        continue;
      }
      const auto& dr = *d;
      if (!dr.has_dim_value() || dr.dim_value() < 0) {
        return InvalidArgument("input '" + in.name() + "' has unknown dim " + std::to_string(i) +
                               (dr.dim_param().empty() ? "" : " ('" + dr.dim_param() + "')") +
                               " in shape " + DimsToString(tt->shape()) +
                               "; Kiln compiles static shapes: pass --input-shape " + in.name() +
                               "=D0,D1,... to fix it");
      }
    }
  }
  return Status::Ok();
}

}  // namespace

Expected<Graph> ParseOnnxBytes(const std::string& bytes, const std::string& base_dir,
                               const OnnxParseOptions& options) {
  onnx::ModelProto model;
  if (bytes.empty()) return DataLoss("ONNX model is empty (0 bytes)");
  if (!model.ParseFromString(bytes)) {
    return DataLoss("not a valid ONNX model: the protobuf is truncated or corrupt (" +
                    std::to_string(bytes.size()) + " bytes)");
  }
  // Before anything else reads the graph (a graph output that no node produces used to crash
  // onnx's version converter).
  KILN_RETURN_IF_ERROR(ValidateOnnxStructure(model));
  KILN_ASSIGN_OR_RETURN(const int64_t declared_opset, DefaultOpset(model));
  // QOperator nodes (QLinearConv, com.microsoft QLinearAdd, ...) become their QDQ form, which
  // the rest of the import and the compiler's lower-qdq pass handle like any QDQ model.
  KILN_RETURN_IF_ERROR(ExpandQOperatorNodes(model, base_dir));
  KILN_RETURN_IF_ERROR(CheckOpsSupported(model, declared_opset));
  KILN_ASSIGN_OR_RETURN(const int64_t opset, EffectiveOpset(model, declared_opset));
  KILN_RETURN_IF_ERROR(FixInputShapes(model, options));
  GraphBuildOptions build;
  build.base_dir = base_dir;
  build.opset = opset;
  build.frozen_inputs = options.frozen_inputs;
  return BuildGraph(model, build);
}

static Expected<std::string> ReadModelBytes(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return NotFound("ONNX model '" + path + "' not found (or not a regular file)");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open ONNX model '" + path + "'");
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

Expected<std::vector<OnnxDeclaredInput>> ReadOnnxDeclaredInputs(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string bytes, ReadModelBytes(path));
  onnx::ModelProto model;
  if (!model.ParseFromString(bytes)) {
    return DataLoss("'" + path + "' is not a valid ONNX model (truncated or corrupt)");
  }
  std::set<std::string> inits;
  for (const auto& t : model.graph().initializer()) inits.insert(t.name());
  std::vector<OnnxDeclaredInput> out;
  for (const auto& vi : model.graph().input()) {
    if (inits.count(vi.name())) continue;
    OnnxDeclaredInput d;
    d.name = vi.name();
    if (vi.type().has_tensor_type()) {
      const auto& tt = vi.type().tensor_type();
      d.onnx_type = OnnxDataTypeName(tt.elem_type());
      auto dt = DTypeFromOnnx(tt.elem_type(), d.name);
      if (dt.ok()) d.dtype = *dt;
      d.has_shape = tt.has_shape();
      for (const auto& dim : tt.shape().dim()) {
        d.dims.push_back(dim.has_dim_value() && dim.dim_value() >= 0 ? dim.dim_value() : -1);
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

Expected<std::vector<std::string>> ReadOnnxInputNames(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(auto declared, ReadOnnxDeclaredInputs(path));
  std::vector<std::string> names;
  for (const auto& d : declared) names.push_back(d.name);
  return names;
}

Expected<Graph> ParseOnnxFile(const std::string& path, const OnnxParseOptions& options) {
  KILN_ASSIGN_OR_RETURN(std::string bytes, ReadModelBytes(path));
  std::string dir = std::filesystem::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  auto g = ParseOnnxBytes(bytes, dir, options);
  if (!g.ok()) return g.status().WithContext("'" + path + "'");
  return g;
}

}  // namespace kiln
