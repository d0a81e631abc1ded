// Loads a model for the CLI from an .onnx file (import, then the compiler in-process) or a
// signed .kiln file (verified by the runtime loader), so every subcommand accepts both and
// runs the same compiled graph and plan.
#pragma once

#include <CLI/CLI.hpp>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/pipeline.h"
#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "tools/kiln/trust_flags.h"

namespace kiln {
class Model;
}

namespace kiln::cli {

struct ModelSourceOptions {
  // --input-shape NAME=D0,D1,... (fixes symbolic dims of ONNX inputs)
  std::map<std::string, std::vector<int64_t>> input_shapes;
  // Inputs bound to constant values (e.g. from test data) because they determine shapes.
  std::vector<HostTensor> frozen_inputs;
  // Trust for .kiln files: --pub FILE (repeatable), --trust-dir DIR, KILN_TRUST_DIR.
  std::vector<std::string> public_keys;
  std::string trust_dir;
  bool allow_unsigned = false;
  // --map-weights: use an uncompressed weights section in place from the file mapping
  // (LoadOptions::map_weights; read-only storage only).
  bool map_weights = false;
  // --min-version, --counter-file, --now, --ignore-validity (LoadOptions::policy).
  TrustPolicyArgs policy;
  // How ONNX sources are compiled: --opt-level, --disable-pass, --streams (target_isa is set
  // by the command: --target for compile, --isa for run/validate).
  CompileOptions compile;
};

// A model ready for a session: its graph and execution plan, and what produced them.
struct LoadedModel {
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<const ExecutionPlan> plan;
  std::shared_ptr<const Model> kiln;  // set for .kiln files (signature, sections, metadata)
  // For ONNX sources: the compiler's report and the source model's node count.
  std::vector<PassReport> reports;
  MemoryPlanStats memory;
  StreamStats streams;
  int64_t source_nodes = -1;
  // What the source counts: "ONNX nodes" or "TFLite operators" (for .kiln files, from the
  // metadata's source-format, when written).
  std::string source_unit = "ONNX nodes";
  // What the executors read besides the graph and plan: the file's sections, or what the
  // compiler's lowering made for an ONNX source.
  ModelPayloads payloads;
};

// Adds --input-shape, --pub, --trust-dir, --allow-unsigned, --map-weights, the trust-policy
// flags (--min-version, --counter-file, --now, --ignore-validity) and the compile flags
// (--opt-level, --disable-pass, --streams) to a subcommand.
void AddModelSourceFlags(CLI::App& cmd, ModelSourceOptions* options,
                         std::vector<std::string>* raw_input_shapes);
// The ranges of --opt-level and --streams, named by their flags (the compiler checks the same
// options by their own names; an unknown --disable-pass it names with the list of passes).
Status CheckCompileFlags(const CompileOptions& compile);
// Parses "NAME=1,3,224,224" strings into options->input_shapes.
Status ParseInputShapes(const std::vector<std::string>& raw, ModelSourceOptions* options);

// Dispatches on the file's content (.kiln magic) or extension.
Expected<LoadedModel> LoadModel(const std::string& path, const ModelSourceOptions& options);

// The .kiln branch of LoadModel (tools/kiln/model_source_kiln.cc): verifies the signature with
// the trust options, then returns the graph and its plan.
Expected<LoadedModel> LoadKilnModel(const std::string& path, const ModelSourceOptions& options);

}  // namespace kiln::cli
