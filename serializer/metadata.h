// Provenance recorded in a .kiln file's metadata section, and the signed identity and validity
// the trust policy checks (serializer/trust_policy.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kiln {

struct ModelMetadata {
  std::string producer;          // "kiln"
  std::string producer_version;  // e.g. "0.1.0"
  std::string source_sha256;     // hex SHA-256 of the source model file
  std::string source_name;       // base name of the source model file
  std::vector<std::pair<std::string, std::string>> compile_options;
  int64_t created_unix = 0;  // seconds since the epoch, UTC
  // Format 1.8 (all absent in older files). Id and version come together or not at all
  // (CheckModelIdentity); a file without them is "unversioned".
  std::string model_id;                    // [A-Za-z0-9._-]{1,128}, "" when absent
  std::optional<uint64_t> model_version;   // only moves forward on a device (rule 'rollback')
  std::optional<int64_t> not_before_unix;  // seconds, UTC (rule 'not-before')
  std::optional<int64_t> not_after_unix;   // seconds, UTC, inclusive (rule 'not-after')

  bool versioned() const { return !model_id.empty() && model_version.has_value(); }
};

}  // namespace kiln
