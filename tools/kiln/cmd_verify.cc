// kiln verify FILE.kiln --pub KEY.pub: reports the signer, every section's sizes and hash
// status, and whether the graph loads; exit 0 only when every check holds.
#include <cctype>
#include <iostream>
#include <memory>

#include "runtime/mapped_file.h"
#include "runtime/model.h"
#include "serializer/container_reader.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"

namespace kiln::cli {
namespace {

struct VerifyArgs {
  std::string file;
  std::vector<std::string> pubs;
  std::string trust_dir;
};

Status Verify(const VerifyArgs& args, int* exit_code) {
  TrustStore trust;
  for (const auto& p : args.pubs)
    KILN_RETURN_IF_ERROR(trust.AddPublicKeyFile(p).WithContext("--pub"));
  if (!args.trust_dir.empty()) {
    KILN_RETURN_IF_ERROR(trust.AddDirectory(args.trust_dir).WithContext("--trust-dir"));
  } else {
    KILN_RETURN_IF_ERROR(trust.AddFromEnvironment());
  }
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(args.file));
  std::cout << "file: " << args.file << " (" << file->size() << " bytes)\n";
  KILN_ASSIGN_OR_RETURN(format::ContainerView view,
                        format::ParseContainer(file->data(), file->size()));
  std::cout << "format: " << view.header.major << "." << view.header.minor << ", "
            << view.sections.size() << " sections\n";
  bool all_ok = true;
  std::string key_id;
  Status sig = format::VerifySignature(view, trust, /*allow_unsigned=*/false, &key_id);
  if (view.is_signed) {
    std::string claimed;  // untrusted bytes: show hex digits only
    for (char c : view.signature.key_id) {
      claimed += std::isxdigit(static_cast<unsigned char>(c)) ? c : '?';
    }
    std::cout << "signature: Ed25519, key id " << (sig.ok() ? key_id : claimed) << ": "
              << (sig.ok() ? "OK" : "FAILED (" + sig.message() + ")") << "\n";
  } else {
    std::cout << "signature: none: FAILED (unsigned)\n";
  }
  all_ok &= sig.ok();
  for (const auto& e : view.sections) {
    Status h = format::VerifySectionHash(view, e);
    all_ok &= h.ok();
    std::cout << "section " << format::SectionKindName(e.kind)
              << (format::IsKnownSectionKind(e.kind) ? "" : " (skipped by this reader)")
              << ": compression " << format::CompressionName(e.compression) << ", stored "
              << e.stored_size << " bytes, uncompressed " << e.uncompressed_size
              << " bytes, sha256 " << format::HexEncode(e.sha256.data(), e.sha256.size())
              << ": hash " << (h.ok() ? "OK" : "MISMATCH") << "\n";
  }
  if (all_ok) {
    auto model = Model::Load(args.file, trust, {});
    if (model.ok()) {
      const Graph& g = *(*model)->graph();
      const ModelInfo& info = (*model)->info();
      std::cout << "graph: OK (" << g.num_nodes() << " nodes, " << g.num_values()
                << " values)\nmetadata: producer " << info.metadata.producer << " "
                << info.metadata.producer_version << ", source " << info.metadata.source_name
                << " sha256 " << info.metadata.source_sha256 << ", created "
                << info.metadata.created_unix << "\n";
    } else {
      all_ok = false;
      std::cout << "graph: FAILED (" << model.status().message() << ")\n";
    }
  }
  std::cout << "verify: " << (all_ok ? "OK" : "FAILED") << "\n";
  if (!all_ok) *exit_code = kExitError;
  return Status::Ok();
}

}  // namespace

void RegisterVerify(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "verify", "Check a .kiln file's signature, section hashes and graph against trusted keys");
  auto args = std::make_shared<VerifyArgs>();
  cmd->add_option("file", args->file, "The .kiln file")->required();
  cmd->add_option("--pub", args->pubs, "Trusted public key (PREFIX.pub; repeatable)");
  cmd->add_option("--trust-dir", args->trust_dir,
                  "Folder of trusted *.pub keys (default: $KILN_TRUST_DIR)");
  cmd->callback([exit_code, args] {
    RunCommand("verify", exit_code, [&] { return Verify(*args, exit_code); });
  });
}

}  // namespace kiln::cli
