// Model: an immutable, shareable model loaded from a signed .kiln file. The signature, section
// hashes and structure are checked once, before anything in the file is interpreted.
//
//   kiln::TrustStore trust;
//   trust.AddPublicKeyFile("release.pub");
//   auto model = kiln::Model::Load("net.kiln", trust, {});
//   auto session = kiln::Session::Create((*model)->graph());
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ir/dsp_program.h"
#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "serializer/kernel_binaries.h"
#include "serializer/metadata.h"
#include "serializer/trust_policy.h"
#include "serializer/trust_store.h"

namespace kiln {

struct LoadOptions {
  // Accept files without a signature block (development only). A file that is signed must
  // still verify with a trusted key.
  bool allow_unsigned = false;
  // Refuse any section declaring more uncompressed bytes than this (before allocating).
  uint64_t max_section_bytes = uint64_t{4} << 30;
  // Zero-copy weights: an uncompressed weights section is hashed in the file mapping and then
  // used in place from it (no copy, shared page cache). Only for files on storage nothing can
  // write while the model is loaded: a change to the file after verification would change
  // what runs. Default (false): every section is copied into private memory while it is
  // hashed, in one pass, and the verified copy is what runs (docs/security.md).
  bool map_weights = false;
  // Minimum versions, the version counter file and the clock for validity (rules 'rollback',
  // 'not-before', 'not-after'), checked on the signed metadata before the graph is read; the
  // counter moves forward only after a signed file passed every check. Revoked keys are the
  // TrustStore's (rule 'revocation').
  TrustPolicy policy;
};

struct SectionInfo {
  std::string kind;         // "graph", "weights", "metadata", or "unknown(N)" (skipped)
  std::string compression;  // "none" | "zstd"
  uint64_t stored_size = 0;
  uint64_t uncompressed_size = 0;
  std::string sha256;  // hex
};

struct ModelInfo {
  int format_major = 0;
  int format_minor = 0;
  bool is_signed = false;
  std::string key_id;  // signer; empty when unsigned
  ModelMetadata metadata;
  std::vector<SectionInfo> sections;
  bool weights_mapped = false;  // constants point into the file mapping (map_weights)
  bool has_plan = false;        // the file carries the compiler's schedule and memory plan
  std::string gpu_binaries_device;  // device of the embedded GPU program binaries ("" if none)
  size_t dsp_programs = 0;          // nodes with a compiled DSP command stream (section 8)
};

class Model {
 public:
  ~Model();
  // mmaps `path` and verifies it: magic, version, bounds, key revocation, signature, section
  // hashes, the trust policy on the signed metadata, then decompression, schema and graph
  // verification. Every refusal names the failed check (or the policy rule).
  static Expected<std::shared_ptr<const Model>> Load(const std::string& path,
                                                     const TrustStore& trust,
                                                     LoadOptions options = {});
  // Same checks over a file image already in memory; `owner` keeps `data` alive.
  static Expected<std::shared_ptr<const Model>> LoadFromMemory(std::shared_ptr<const void> owner,
                                                               const uint8_t* data, size_t size,
                                                               const TrustStore& trust,
                                                               LoadOptions options = {});

  std::shared_ptr<const Graph> graph() const;
  // The compiled schedule and memory plan (validated against the graph at load); a file
  // without them gets the default: one stream, one buffer per activation.
  std::shared_ptr<const ExecutionPlan> plan() const;
  // GPU program binaries and tuner choices embedded for one device (kernel-binaries
  // section, covered by the signature); null when the file has none.
  std::shared_ptr<const KernelBinaries> kernel_binaries() const;
  // DSP command streams compiled into the file (section 8, --target dsp); null when none.
  std::shared_ptr<const DspProgramSet> dsp_programs() const;
  const ModelInfo& info() const;

 private:
  struct Impl;
  Model();
  // The checks of Load/LoadFromMemory; `release` (may be empty) drops source pages once copied.
  static Expected<std::shared_ptr<const Model>> LoadVerified(
      std::shared_ptr<const void> owner, const uint8_t* data, size_t size, const TrustStore& trust,
      const LoadOptions& options, const std::function<void(const uint8_t*, size_t)>& release);
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
