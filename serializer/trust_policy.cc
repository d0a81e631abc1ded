// Trust policy rules over verified metadata.
#include "serializer/trust_policy.h"

#include <ctime>

#include "serializer/utc_time.h"
#include "serializer/version_counter.h"

namespace kiln {
namespace {

constexpr std::string_view kRefusedPrefix = "refused by rule '";

Status CheckRollback(const ModelMetadata& m, const TrustPolicy& policy) {
  if (!policy.requires_versions()) return Status::Ok();
  auto min_it = policy.min_versions.find(m.model_id);
  if (!m.versioned()) {
    std::string why = m.model_id.empty() ? "the model has no id and version"
                                         : "model '" + m.model_id + "' has no version";
    return PolicyRefusal(rules::kRollback,
                         why + ", and the trust policy requires them (" +
                             (min_it != policy.min_versions.end()
                                  ? "minimum version " + std::to_string(min_it->second)
                                  : std::string("minimum versions or a counter file are set")) +
                             ")");
  }
  const uint64_t version = *m.model_version;
  if (min_it != policy.min_versions.end() && version < min_it->second) {
    return PolicyRefusal(rules::kRollback, "model '" + m.model_id + "' version " +
                                               std::to_string(version) + " < minimum " +
                                               std::to_string(min_it->second) +
                                               " (minimum version policy)");
  }
  if (!policy.counter_file.empty()) {
    KILN_ASSIGN_OR_RETURN(VersionCounter counter, VersionCounter::Load(policy.counter_file));
    const std::optional<uint64_t> seen = counter.Highest(m.model_id);
    if (seen && version < *seen) {
      return PolicyRefusal(rules::kRollback, "model '" + m.model_id + "' version " +
                                                 std::to_string(version) + " < minimum " +
                                                 std::to_string(*seen) + " (counter file '" +
                                                 policy.counter_file + "': version " +
                                                 std::to_string(*seen) + " was loaded before)");
    }
  }
  return Status::Ok();
}

Status CheckValidity(const ModelMetadata& m, const TrustPolicy& policy) {
  if (policy.clock == ClockPolicy::kIgnoreValidity) return Status::Ok();
  if (!m.not_before_unix && !m.not_after_unix) return Status::Ok();
  const int64_t now = policy.clock == ClockPolicy::kFixed
                          ? policy.now_unix
                          : static_cast<int64_t>(std::time(nullptr));
  if (m.not_before_unix && now < *m.not_before_unix) {
    return PolicyRefusal(rules::kNotBefore, "the model is not valid before " +
                                                FormatUtc(*m.not_before_unix) + " (now " +
                                                FormatUtc(now) + ")");
  }
  if (m.not_after_unix && now > *m.not_after_unix) {
    return PolicyRefusal(rules::kNotAfter, "the model expired at " + FormatUtc(*m.not_after_unix) +
                                               " (now " + FormatUtc(now) + ")");
  }
  return Status::Ok();
}

}  // namespace

Status PolicyRefusal(std::string_view rule, const std::string& detail) {
  return PermissionDenied(std::string(kRefusedPrefix) + std::string(rule) + "': " + detail);
}

std::string RefusedRule(const Status& status) {
  if (status.ok() || status.code() != StatusCode::kPermissionDenied) return "";
  const std::string& msg = status.message();
  const size_t at = msg.find(kRefusedPrefix);
  if (at == std::string::npos) return "";
  const size_t start = at + kRefusedPrefix.size();
  const size_t end = msg.find('\'', start);
  return end == std::string::npos ? "" : msg.substr(start, end - start);
}

Status CheckTrustPolicy(const ModelMetadata& metadata, const TrustPolicy& policy) {
  KILN_RETURN_IF_ERROR(CheckRollback(metadata, policy));
  return CheckValidity(metadata, policy);
}

Status RecordVerifiedLoad(const ModelMetadata& metadata, const TrustPolicy& policy) {
  if (policy.counter_file.empty() || !policy.update_counter || !metadata.versioned()) {
    return Status::Ok();
  }
  return AdvanceVersionCounter(policy.counter_file, metadata.model_id, *metadata.model_version);
}

}  // namespace kiln
