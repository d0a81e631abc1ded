// ONNX import driver: load, opset/op checks, onnx checker, static input shapes, conversion to
// the canonical opset, canonicalisation, shape hints, graph building.
#include "parsers/onnx/onnx_parser.h"

#include <onnx/checker.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "parsers/onnx/onnx_canonicalize.h"
#include "parsers/onnx/onnx_graph_builder.h"
#include "parsers/onnx/onnx_structure.h"
#include "parsers/onnx/tensor_proto.h"

namespace kiln {
namespace {

constexpr int64_t kMinOpset = 7;
constexpr int64_t kMaxOpset = 17;

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
  if (opset < 1 || opset > kMaxOpset) {
    return Unsupported("model uses opset " + std::to_string(opset) +
                       " of domain ai.onnx; Kiln imports opsets " + std::to_string(kMinOpset) +
                       ".." + std::to_string(kMaxOpset));
  }
  return opset;
}

// Opsets below 7 have no version-converter adapters. Such a model is still imported when
// every op it uses has the same schema version at its opset as at the canonical opset (e.g.
// Elu-6, Not-1 in ONNX's own node tests): then it already has opset-17 semantics, and only
// the import is relabelled. Otherwise it is rejected naming the opset and the changed ops.
Status AcceptOldOpset(onnx::ModelProto& m, int64_t opset, int64_t canonical) {
  if (opset >= kMinOpset) return Status::Ok();
  std::vector<std::string> changed;
  for (const auto& n : m.graph().node()) {
    const auto* old_schema =
        onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(opset), n.domain());
    const auto* new_schema =
        onnx::OpSchemaRegistry::Schema(n.op_type(), static_cast<int>(canonical), n.domain());
    if (!old_schema || !new_schema || old_schema->SinceVersion() != new_schema->SinceVersion()) {
      changed.push_back(n.op_type());
    }
  }
  if (!changed.empty()) {
    std::string list;
    for (size_t i = 0; i < changed.size() && i < 8; ++i) list += (i ? ", " : "") + changed[i];
    return Unsupported("model uses opset " + std::to_string(opset) +
                       " of domain ai.onnx; Kiln imports opsets " + std::to_string(kMinOpset) +
                       ".." + std::to_string(kMaxOpset) +
                       " (older models only when no op "
                       "changed since; changed: " +
                       list + ")");
  }
  for (auto& imp : *m.mutable_opset_import()) {
    if (IsDefaultDomain(imp.domain())) imp.set_version(canonical);
  }
  return Status::Ok();
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

// onnx::checker::check_model, but with the model's folder set so external data is checked
// where it really lives (the ModelProto overload would look in the working directory).
Status RunChecker(const onnx::ModelProto& m, const std::string& base_dir) {
  try {
    onnx::checker::CheckerContext ctx;
    if (m.ir_version() <= 0) return InvalidArgument("onnx checker: model has no ir_version");
    if (m.ir_version() > onnx::IR_VERSION) {
      return Unsupported("model IR version " + std::to_string(m.ir_version()) +
                         " is newer than this importer's (" + std::to_string(onnx::IR_VERSION) +
                         ")");
    }
    ctx.set_ir_version(static_cast<int>(m.ir_version()));
    std::unordered_map<std::string, int> imports;
    for (const auto& imp : m.opset_import()) {
      imports[imp.domain()] = static_cast<int>(imp.version());
    }
    ctx.set_opset_imports(imports);
    ctx.set_model_dir(base_dir);
    onnx::checker::LexicalScopeContext lex;
    onnx::checker::check_graph(m.graph(), ctx, lex);
  } catch (const std::exception& e) {
    return InvalidArgument(std::string("onnx checker: ") + e.what());
  }
  return Status::Ok();
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
      const auto& d = tt->shape().dim(i);
      if (!d.has_dim_value() || d.dim_value() < 0) {
        return InvalidArgument("input '" + in.name() + "' has unknown dim " + std::to_string(i) +
                               (d.dim_param().empty() ? "" : " ('" + d.dim_param() + "')") +
                               " in shape " + DimsToString(tt->shape()) +
                               "; Kiln compiles static shapes: pass --input-shape " + in.name() +
                               "=D0,D1,... to fix it");
      }
    }
  }
  return Status::Ok();
}

Expected<onnx::ModelProto> ConvertToOpset(const onnx::ModelProto& m, int64_t from, int64_t to) {
  if (from == to) return m;
  try {
    onnx::ModelProto out = onnx::version_conversion::ConvertVersion(m, static_cast<int>(to));
    return out;
  } catch (const std::exception& e) {
    return Unsupported("converting the model from opset " + std::to_string(from) + " to " +
                       std::to_string(to) + " failed: " + e.what());
  }
}

}  // namespace

Expected<Graph> ParseOnnxBytes(const std::string& bytes, const std::string& base_dir,
                               const OnnxParseOptions& options) {
  if (options.canonical_opset != kMaxOpset) {
    return InvalidArgument("canonical opset must be " + std::to_string(kMaxOpset) +
                           " (the opset Kiln's op schemas implement)");
  }
  onnx::ModelProto model;
  if (bytes.empty()) return DataLoss("ONNX model is empty (0 bytes)");
  if (!model.ParseFromString(bytes)) {
    return DataLoss("not a valid ONNX model: the protobuf is truncated or corrupt (" +
                    std::to_string(bytes.size()) + " bytes)");
  }
  // Before any libonnx routine: they assume a well-formed graph (a graph output that no node
  // produces used to crash onnx's version converter).
  KILN_RETURN_IF_ERROR(ValidateOnnxStructure(model));
  KILN_ASSIGN_OR_RETURN(const int64_t opset, DefaultOpset(model));
  KILN_RETURN_IF_ERROR(CheckOpsSupported(model, opset));
  KILN_RETURN_IF_ERROR(RunChecker(model, base_dir));
  KILN_RETURN_IF_ERROR(AcceptOldOpset(model, opset, options.canonical_opset));
  for (auto& t : *model.mutable_graph()->mutable_initializer()) {
    KILN_RETURN_IF_ERROR(InlineExternalData(t, base_dir));
  }
  for (auto& n : *model.mutable_graph()->mutable_node()) {
    for (auto& a : *n.mutable_attribute()) {
      if (a.has_t()) KILN_RETURN_IF_ERROR(InlineExternalData(*a.mutable_t(), base_dir));
    }
  }
  KILN_RETURN_IF_ERROR(FixInputShapes(model, options));
  KILN_RETURN_IF_ERROR(CanonicalizeBeforeConversion(model, opset));
  const int64_t convert_from = opset < kMinOpset ? options.canonical_opset : opset;
  KILN_ASSIGN_OR_RETURN(onnx::ModelProto converted,
                        ConvertToOpset(model, convert_from, options.canonical_opset));
  KILN_RETURN_IF_ERROR(CanonicalizeAfterConversion(converted));
  try {
    // Hints only (dtypes of intermediates): Kiln's own schemas decide shapes later.
    onnx::shape_inference::InferShapes(converted, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(false, 0, true));
  } catch (const std::exception&) {
    // Missing hints are harmless.
  }
  GraphBuildOptions build;
  build.base_dir = base_dir;
  build.source_opset = opset;
  build.frozen_inputs = options.frozen_inputs;
  return BuildGraph(converted, build);
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
