// TrustPolicy: what a device requires of a model beyond a trusted signature: a minimum version
// per model id and a version counter that only moves forward (rule 'rollback'), and the
// validity window checked against a clock (rules 'not-before' and 'not-after'). Key revocation
// (rule 'revocation') lives in the TrustStore, as it is checked before the signature. Each
// refusal reads "refused by rule '<rule>': <why>" (docs/security.md, "Check order").
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "ir/status.h"
#include "serializer/metadata.h"

namespace kiln {

namespace rules {
inline constexpr const char* kRevocation = "revocation";
inline constexpr const char* kRollback = "rollback";
inline constexpr const char* kNotBefore = "not-before";
inline constexpr const char* kNotAfter = "not-after";
}  // namespace rules

enum class ClockPolicy {
  kSystem,          // the system clock (time(2)): for devices whose clock is trusted
  kFixed,           // TrustPolicy::now_unix: tests, or a time from a trusted source
  kIgnoreValidity,  // no trusted clock: not-before/not-after are not checked
};

struct TrustPolicy {
  // Rule 'rollback': a model whose id is listed loads only with version >= the minimum.
  std::map<std::string, uint64_t, std::less<>> min_versions;
  // Rule 'rollback': a version counter file (serializer/version_counter.h). Its version for the
  // model's id is a further minimum, and it records the version of every signed model that
  // loads. Empty: none.
  std::string counter_file;
  // Whether a successful load moves the counter forward (`kiln verify` checks without moving).
  bool update_counter = true;
  ClockPolicy clock = ClockPolicy::kSystem;
  int64_t now_unix = 0;  // with ClockPolicy::kFixed

  // With minimum versions or a counter file, every model must carry an id and a version: an
  // older unversioned file of the same model would otherwise roll it back.
  bool requires_versions() const { return !min_versions.empty() || !counter_file.empty(); }
};

// PermissionDenied("refused by rule '<rule>': <detail>").
Status PolicyRefusal(std::string_view rule, const std::string& detail);
// The rule named by a PolicyRefusal anywhere in `status`'s message (context may precede it);
// "" for any other status.
std::string RefusedRule(const Status& status);

// Rules 'rollback', 'not-before', 'not-after' on the metadata of a file whose signature and
// metadata hash have verified (an empty ModelMetadata when the file has no metadata section).
// Reads the counter file: one that does not parse refuses the load.
Status CheckTrustPolicy(const ModelMetadata& metadata, const TrustPolicy& policy);

// After a signed file has passed every check: moves the counter file forward to its version
// (when policy.update_counter and the file is versioned). Unsigned files never move it.
Status RecordVerifiedLoad(const ModelMetadata& metadata, const TrustPolicy& policy);

}  // namespace kiln
