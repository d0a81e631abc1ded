// Model loading for the CLI: .kiln files go to the verified loader, TFLite files (by their
// 'TFL3' identifier or extension) to the TFLite importer, anything else is imported as ONNX
// (parse, shape propagation, constant folding, verification).
#include "tools/kiln/model_source.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <iostream>

#include "compiler/frontend.h"
#include "parsers/onnx/onnx_model_info.h"
#include "tools/kiln/session_setup.h"

namespace kiln::cli {

void AddModelSourceFlags(CLI::App& cmd, ModelSourceOptions* options,
                         std::vector<std::string>* raw_input_shapes) {
  cmd.add_option("--input-shape", *raw_input_shapes,
                 "Fix an ONNX input's symbolic dims: NAME=D0,D1,... (repeatable)");
  cmd.add_option("--pub", options->public_keys,
                 "Trusted public key for .kiln signatures (repeatable)");
  cmd.add_option("--trust-dir", options->trust_dir,
                 "Folder of trusted public keys (default: $KILN_TRUST_DIR)");
  cmd.add_flag("--allow-unsigned", options->allow_unsigned,
               "Accept .kiln files without a signature (development only)");
  cmd.add_option("--opt-level", options->compile.opt_level,
                 "ONNX sources: compiler optimisation level 0..3 (default 2)");
  cmd.add_option("--disable-pass", options->compile.disabled_passes,
                 "ONNX sources: skip a compiler pass by name (repeatable; to bisect a "
                 "miscompile, see docs/compiler.md)");
  cmd.add_option("--streams", options->compile.streams,
                 "ONNX sources: split the graph into up to N concurrent streams (default 1)");
  cmd.add_flag("--map-weights", options->map_weights,
               "Use uncompressed .kiln weights in place from the file mapping (zero-copy; only "
               "for files on read-only storage)");
  AddTrustPolicyFlags(cmd, &options->policy);
}

Status ParseInputShapes(const std::vector<std::string>& raw, ModelSourceOptions* options) {
  for (const std::string& item : raw) {
    const size_t eq = item.rfind('=');
    if (eq == std::string::npos || eq == 0)
      return InvalidArgument("--input-shape '" + item + "': expected NAME=D0,D1,...");
    const std::string name = item.substr(0, eq);
    std::vector<int64_t> dims;
    const std::string list = item.substr(eq + 1);
    size_t start = 0;
    while (start <= list.size() && !list.empty()) {
      const size_t comma = list.find(',', start);
      const std::string d = list.substr(start, comma == std::string::npos ? comma : comma - start);
      if (d.empty() || d.size() > 12 || d.find_first_not_of("0123456789") != std::string::npos)
        return InvalidArgument("--input-shape '" + item + "': '" + d +
                               "' is not a non-negative integer dim");
      dims.push_back(std::stoll(d));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (options->input_shapes.count(name))
      return InvalidArgument("--input-shape given twice for '" + name + "'");
    options->input_shapes[name] = std::move(dims);
  }
  return Status::Ok();
}

Status CheckCompileFlags(const CompileOptions& compile) {
  if (compile.opt_level < 0 || compile.opt_level > 3) {
    return InvalidArgument("--opt-level must be 0..3, got " + std::to_string(compile.opt_level));
  }
  if (compile.streams < 1 || compile.streams > 16) {
    return InvalidArgument("--streams must be 1..16, got " + std::to_string(compile.streams));
  }
  return Status::Ok();
}

Expected<LoadedModel> LoadModel(const std::string& path, const ModelSourceOptions& options) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound("model file '" + path + "' not found");
  if (std::filesystem::is_directory(path, ec))
    return InvalidArgument("model path '" + path + "' is a directory, not a file");
  if (IsKilnFile(path)) {
    ModelSourceOptions with_env = options;
    if (with_env.trust_dir.empty()) {
      if (const char* env = std::getenv("KILN_TRUST_DIR")) with_env.trust_dir = env;
    }
    return LoadKilnModel(path, with_env);
  }
  KILN_RETURN_IF_ERROR(CheckCompileFlags(options.compile));
  const bool tflite = IsTfliteFile(path);
  auto graph = [&]() -> Expected<Graph> {
    if (tflite) {
      TfliteParseOptions parse;
      parse.input_shapes = options.input_shapes;
      return ImportTflite(path, parse);
    }
    OnnxParseOptions parse;
    parse.input_shapes = options.input_shapes;
    parse.frozen_inputs = options.frozen_inputs;
    parse.notice = [](const std::string& notice) { std::cerr << "kiln: note: " << notice << "\n"; };
    return ImportOnnx(path, parse);
  }();
  if (!graph.ok()) {
    // The importer names the file in most messages; add it where it does not.
    const Status& st = graph.status();
    return st.message().find(path) == std::string::npos ? st.WithContext(path) : st;
  }
  auto compiled = CompileGraph(std::move(graph).value(), options.compile);
  if (!compiled.ok()) return compiled.status().WithContext(path);
  LoadedModel m;
  m.graph = std::make_shared<const Graph>(std::move(compiled->graph));
  m.plan = std::make_shared<const ExecutionPlan>(std::move(compiled->plan));
  m.reports = std::move(compiled->reports);
  m.memory = compiled->memory;
  m.streams = compiled->streams;
  m.payloads = std::move(compiled->payloads);
  auto nodes = tflite ? CountTfliteOperators(path) : CountOnnxNodes(path);
  if (nodes.ok()) m.source_nodes = *nodes;
  if (tflite) m.source_unit = "TFLite operators";
  return m;
}

}  // namespace kiln::cli
