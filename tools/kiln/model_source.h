// Loads a model for the CLI from an .onnx file (parse + shape propagation) or a signed .kiln
// file (verified by the runtime loader), so every subcommand accepts both.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "ir/graph.h"
#include "ir/host_tensor.h"

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
};

// Adds --input-shape, --pub, --trust-dir, --allow-unsigned and --map-weights to a subcommand.
void AddModelSourceFlags(CLI::App& cmd, ModelSourceOptions* options,
                         std::vector<std::string>* raw_input_shapes);
// Parses "NAME=1,3,224,224" strings into options->input_shapes.
Status ParseInputShapes(const std::vector<std::string>& raw, ModelSourceOptions* options);

// Dispatches on the file's content (.kiln magic) or extension.
Expected<std::shared_ptr<const Graph>> LoadModel(const std::string& path,
                                                 const ModelSourceOptions& options);

}  // namespace kiln::cli

namespace kiln::cli {
// The .kiln branch of LoadModel (tools/kiln/model_source_kiln.cc): verifies the signature with
// the trust options, then returns the graph.
Expected<std::shared_ptr<const Graph>> LoadKilnModel(const std::string& path,
                                                     const ModelSourceOptions& options);
}  // namespace kiln::cli
