// kiln compile MODEL.onnx -o OUT.kiln [--sign-key K] [--compress zstd[:L]|none]: the offline
// step that produces a (signed) .kiln file from a shape-propagated graph.
#include <filesystem>
#include <iostream>
#include <memory>

#include "runtime/model.h"
#include "serializer/model_writer.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/model_source.h"

namespace kiln::cli {
namespace {

struct CompileArgs {
  std::string model;
  std::string out;
  std::string sign_key;
  std::string compress = "none";
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

Status Compile(const CompileArgs& args) {
  ModelSourceOptions source = args.source;
  KILN_RETURN_IF_ERROR(ParseInputShapes(args.raw_shapes, &source));
  WriteOptions options;
  KILN_RETURN_IF_ERROR(ParseCompression(args.compress, &options));
  std::unique_ptr<signing::PrivateKey> key;
  if (!args.sign_key.empty()) {
    KILN_ASSIGN_OR_RETURN(signing::PrivateKey k, signing::PrivateKey::FromPemFile(args.sign_key));
    key = std::make_unique<signing::PrivateKey>(std::move(k));
    options.signing_key = key.get();
  }
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const Graph> graph, LoadModel(args.model, source));

  ModelMetadata& meta = options.metadata;
  KILN_ASSIGN_OR_RETURN(meta.source_sha256, signing::Sha256FileHex(args.model));
  meta.source_name = std::filesystem::path(args.model).filename().string();
  meta.compile_options.emplace_back("compress", args.compress);
  for (const auto& raw : args.raw_shapes) meta.compile_options.emplace_back("input-shape", raw);
  meta.compile_options.emplace_back("signed", key ? "yes" : "no");

  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> image, SerializeModel(*graph, options));
  // Load what we are about to ship through the device loader: a file that does not verify
  // must never leave the compiler.
  TrustStore trust;
  LoadOptions load;
  load.allow_unsigned = key == nullptr;
  std::string key_id;
  if (key) {
    KILN_ASSIGN_OR_RETURN(signing::PublicKey pub, key->public_key());
    key_id = pub.key_id();
    KILN_ASSIGN_OR_RETURN(std::string pem, pub.ToPem());
    KILN_RETURN_IF_ERROR(trust.AddPublicKeyPem(pem));
  }
  auto check = Model::LoadFromMemory(nullptr, image.data(), image.size(), trust, load);
  if (!check.ok()) return check.status().WithContext("the compiled file does not load back");
  KILN_RETURN_IF_ERROR(WriteFileAtomically(args.out, image));
  std::cout << "wrote " << args.out << " (" << image.size() << " bytes, " << graph->num_nodes()
            << " nodes, compression " << args.compress << ", "
            << (key ? "signed by key id " + key_id : std::string("unsigned")) << ")\n";
  return Status::Ok();
}

}  // namespace

void RegisterCompile(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand("compile", "Compile a model into a (signed) .kiln file");
  auto args = std::make_shared<CompileArgs>();
  cmd->add_option("model", args->model, "Source model (.onnx)")->required();
  cmd->add_option("-o,--out", args->out, "Output .kiln file")->required();
  cmd->add_option("--sign-key", args->sign_key, "Ed25519 private key (PREFIX.key) to sign with");
  cmd->add_option("--compress", args->compress, "Section compression: none | zstd | zstd:LEVEL");
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback(
      [exit_code, args] { RunCommand("compile", exit_code, [&] { return Compile(*args); }); });
}

}  // namespace kiln::cli
