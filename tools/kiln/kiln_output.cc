// Serialise, verify by loading back, write.
#include "tools/kiln/kiln_output.h"

#include <memory>

#include "runtime/model.h"

namespace kiln::cli {

Expected<WrittenModel> WriteKilnModel(const Graph& graph, const ExecutionPlan& plan,
                                      ModelMetadata metadata, const KilnOutput& out) {
  WriteOptions options;
  KILN_RETURN_IF_ERROR(ParseCompression(out.compress, &options));
  std::unique_ptr<signing::PrivateKey> key;
  if (!out.sign_key.empty()) {
    KILN_ASSIGN_OR_RETURN(signing::PrivateKey k, signing::PrivateKey::FromPemFile(out.sign_key));
    key = std::make_unique<signing::PrivateKey>(std::move(k));
    options.signing_key = key.get();
  }
  options.plan = &plan;
  options.kernel_binaries = out.kernel_binaries;
  options.dsp_programs = out.dsp_programs;
  metadata.compile_options.emplace_back("compress", out.compress);
  metadata.compile_options.emplace_back("signed", key ? "yes" : "no");
  options.metadata = std::move(metadata);
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> image, SerializeModel(graph, options));
  TrustStore trust;
  LoadOptions load;
  load.allow_unsigned = key == nullptr;
  // A file may be made for a later validity window (or kept past its end): the check here is
  // that it loads, the clock is the device's business.
  load.policy.clock = ClockPolicy::kIgnoreValidity;
  WrittenModel written;
  if (key) {
    KILN_ASSIGN_OR_RETURN(signing::PublicKey pub, key->public_key());
    written.key_id = pub.key_id();
    KILN_ASSIGN_OR_RETURN(std::string pem, pub.ToPem());
    KILN_RETURN_IF_ERROR(trust.AddPublicKeyPem(pem));
  }
  auto check = Model::LoadFromMemory(nullptr, image.data(), image.size(), trust, load);
  if (!check.ok()) return check.status().WithContext("the compiled file does not load back");
  KILN_RETURN_IF_ERROR(WriteFileAtomically(out.path, image));
  written.bytes = image.size();
  return written;
}

}  // namespace kiln::cli
