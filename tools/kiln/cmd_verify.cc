// kiln verify FILE.kiln --pub KEY.pub [--min-version ID=N] [--counter-file PATH] [--now TIME]:
// reports the signer, every section's sizes and hash status, the model's signed identity and
// validity, the trust policy's verdict (naming the rule that refused), and whether the graph
// loads; exit 0 only when every check holds. It never moves the counter file.
#include <cctype>
#include <ctime>
#include <iostream>
#include <memory>

#include "runtime/mapped_file.h"
#include "runtime/model.h"
#include "serializer/container_reader.h"
#include "serializer/graph_reader.h"
#include "serializer/utc_time.h"
#include "serializer/version_counter.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/trust_flags.h"

namespace kiln::cli {
namespace {

struct VerifyArgs {
  std::string file;
  std::vector<std::string> pubs;
  std::string trust_dir;
  TrustPolicyArgs policy;
};

std::string Refusal(const Status& s) {
  const std::string rule = RefusedRule(s);
  return (rule.empty() ? "FAILED (" : "REFUSED (") + s.message() + ")";
}

void PrintIdentity(const ModelMetadata& m) {
  std::cout << "model: ";
  if (m.versioned()) {
    std::cout << "id " << m.model_id << ", version " << *m.model_version << "\n";
  } else {
    std::cout << "no id or version (unversioned)\n";
  }
  std::cout << "created: " << FormatUtc(m.created_unix) << "\n";
  std::cout << "validity: ";
  if (!m.not_before_unix && !m.not_after_unix) {
    std::cout << "no limits\n";
  } else {
    std::cout << "not before " << (m.not_before_unix ? FormatUtc(*m.not_before_unix) : "-")
              << ", not after " << (m.not_after_unix ? FormatUtc(*m.not_after_unix) : "-") << "\n";
  }
}

// What the policy checked, for a file it accepted.
std::string PolicySummary(const ModelMetadata& m, const TrustPolicy& p) {
  std::string out;
  if (p.requires_versions()) {
    uint64_t floor = 0;
    std::string from = "no minimum for this id";
    if (auto it = p.min_versions.find(m.model_id); it != p.min_versions.end()) {
      floor = it->second;
      from = "--min-version";
    }
    if (!p.counter_file.empty()) {
      auto counter = VersionCounter::Load(p.counter_file);
      if (counter.ok()) {
        const auto seen = counter->Highest(m.model_id);
        if (seen && *seen >= floor) {
          floor = *seen;
          from = "counter file";
        }
      }
    }
    out += "rollback: version " + std::to_string(*m.model_version) +
           " >= " + std::to_string(floor) + " (" + from + ")";
  } else {
    out += "rollback: no version policy";
  }
  out += "; ";
  if (!m.not_before_unix && !m.not_after_unix) {
    out += "validity: no limits";
  } else if (p.clock == ClockPolicy::kIgnoreValidity) {
    out += "validity: NOT checked (--ignore-validity)";
  } else {
    const int64_t now =
        p.clock == ClockPolicy::kFixed ? p.now_unix : static_cast<int64_t>(std::time(nullptr));
    out += "validity: checked at " + FormatUtc(now) +
           (p.clock == ClockPolicy::kFixed ? " (--now)" : " (system clock)");
  }
  return out;
}

Status Verify(const VerifyArgs& args, int* exit_code) {
  TrustStore trust;
  for (const auto& p : args.pubs)
    KILN_RETURN_IF_ERROR(trust.AddPublicKeyFile(p).WithContext("--pub"));
  if (!args.trust_dir.empty()) {
    KILN_RETURN_IF_ERROR(trust.AddDirectory(args.trust_dir).WithContext("--trust-dir"));
  } else {
    KILN_RETURN_IF_ERROR(trust.AddFromEnvironment());
  }
  KILN_ASSIGN_OR_RETURN(TrustPolicy policy, args.policy.ToPolicy());
  policy.update_counter = false;  // verify inspects; only a real load moves the counter
  KILN_ASSIGN_OR_RETURN(std::shared_ptr<const MappedFile> file, MappedFile::Open(args.file));
  std::cout << "file: " << args.file << " (" << file->size() << " bytes)\n";
  KILN_ASSIGN_OR_RETURN(format::ContainerView view,
                        format::ParseContainer(file->data(), file->size()));
  std::cout << "format: " << view.header.major << "." << view.header.minor << ", "
            << view.sections.size() << " sections\n";
  bool all_ok = true;
  std::string rule;  // the trust rule that refused, if one did
  std::string key_id;
  Status sig = format::VerifySignature(view, trust, /*allow_unsigned=*/false, &key_id);
  if (view.is_signed) {
    std::string claimed;  // untrusted bytes: show hex digits only
    for (char c : view.signature.key_id) {
      claimed += std::isxdigit(static_cast<unsigned char>(c)) ? c : '?';
    }
    std::cout << "signature: Ed25519, key id " << (sig.ok() ? key_id : claimed) << ": "
              << (sig.ok() ? "OK" : Refusal(sig)) << "\n";
  } else {
    std::cout << "signature: none: FAILED (unsigned)\n";
  }
  all_ok &= sig.ok();
  if (!sig.ok()) rule = RefusedRule(sig);
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
  // The identity and validity are shown only once the signature and hashes vouch for them.
  if (all_ok) {
    ModelMetadata meta;
    Status meta_ok;
    if (const format::SectionEntry* e = view.Find(format::SectionKind::kMetadata)) {
      auto bytes = format::CopyVerifiedSection(view, *e);
      auto read =
          bytes.ok() ? format::ReadMetadata(*bytes) : Expected<ModelMetadata>(bytes.status());
      if (read.ok()) {
        meta = std::move(read).value();
      } else {
        meta_ok = read.status();
      }
    }
    if (meta_ok.ok()) {
      PrintIdentity(meta);
      Status verdict = CheckTrustPolicy(meta, policy);
      std::cout << "policy: "
                << (verdict.ok() ? "OK (" + PolicySummary(meta, policy) + ")" : Refusal(verdict))
                << "\n";
      all_ok &= verdict.ok();
      if (!verdict.ok()) rule = RefusedRule(verdict);
    } else {
      all_ok = false;
      std::cout << "metadata: FAILED (" << meta_ok.message() << ")\n";
    }
  }
  if (all_ok) {
    LoadOptions load;
    load.policy = policy;
    auto model = Model::Load(args.file, trust, load);
    if (model.ok()) {
      const Graph& g = *(*model)->graph();
      const ModelInfo& info = (*model)->info();
      std::cout << "graph: OK (" << g.num_nodes() << " nodes, " << g.num_values()
                << " values)\nmetadata: producer " << info.metadata.producer << " "
                << info.metadata.producer_version << ", source " << info.metadata.source_name
                << " sha256 " << info.metadata.source_sha256 << "\n";
    } else {
      all_ok = false;
      rule = RefusedRule(model.status());
      std::cout << "graph: FAILED (" << model.status().message() << ")\n";
    }
  }
  std::cout << "verify: "
            << (all_ok         ? "OK"
                : rule.empty() ? "FAILED"
                               : "FAILED (refused by rule '" + rule + "')")
            << "\n";
  if (!all_ok) *exit_code = kExitError;
  return Status::Ok();
}

}  // namespace

void RegisterVerify(CLI::App& app, int* exit_code) {
  auto* cmd = app.add_subcommand(
      "verify",
      "Check a .kiln file's signature, section hashes, trust policy and graph against trusted "
      "keys");
  auto args = std::make_shared<VerifyArgs>();
  cmd->add_option("file", args->file, "The .kiln file")->required();
  cmd->add_option("--pub", args->pubs, "Trusted public key (PREFIX.pub; repeatable)");
  cmd->add_option("--trust-dir", args->trust_dir,
                  "Folder of trusted *.pub keys and its revoked.txt (default: $KILN_TRUST_DIR)");
  AddTrustPolicyFlags(*cmd, &args->policy);
  cmd->callback([exit_code, args] {
    RunCommand("verify", exit_code, [&] { return Verify(*args, exit_code); });
  });
}

}  // namespace kiln::cli
