// Trust-policy flags -> TrustPolicy.
#include "tools/kiln/trust_flags.h"

#include "serializer/model_identity.h"
#include "serializer/utc_time.h"

namespace kiln::cli {

void AddTrustPolicyFlags(CLI::App& cmd, TrustPolicyArgs* args) {
  cmd.add_option("--min-version", args->min_versions,
                 ".kiln files: refuse model ID below version N, and files without an id and "
                 "version (ID=N, repeatable)");
  cmd.add_option("--counter-file", args->counter_file,
                 ".kiln files: version counter file; refuses a version below the highest one "
                 "loaded before, and records each signed model that loads");
  cmd.add_option("--now", args->now,
                 ".kiln files: check not-before/not-after at this time (YYYY-MM-DDTHH:MM:SSZ) "
                 "instead of the system clock");
  cmd.add_flag("--ignore-validity", args->ignore_validity,
               ".kiln files: no trusted clock: do not check not-before/not-after");
}

Expected<TrustPolicy> TrustPolicyArgs::ToPolicy() const {
  TrustPolicy policy;
  for (const std::string& item : min_versions) {
    const size_t eq = item.find('=');
    const std::string id = item.substr(0, eq);
    if (eq == std::string::npos || !IsValidModelId(id)) {
      return InvalidArgument("--min-version '" + item +
                             "': expected ID=N with ID of [A-Za-z0-9._-] (1.." +
                             std::to_string(kMaxModelIdChars) + " characters)");
    }
    KILN_ASSIGN_OR_RETURN(uint64_t v,
                          ParseModelVersion(item.substr(eq + 1), "--min-version '" + item + "'"));
    if (!policy.min_versions.emplace(id, v).second) {
      return InvalidArgument("--min-version given twice for '" + id + "'");
    }
  }
  policy.counter_file = counter_file;
  if (!now.empty() && ignore_validity) {
    return InvalidArgument("--now and --ignore-validity exclude each other");
  }
  if (!now.empty()) {
    KILN_ASSIGN_OR_RETURN(policy.now_unix, ParseUtc(now, "--now"));
    policy.clock = ClockPolicy::kFixed;
  } else if (ignore_validity) {
    policy.clock = ClockPolicy::kIgnoreValidity;
  }
  return policy;
}

}  // namespace kiln::cli
