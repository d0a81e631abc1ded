// The trust-policy flags of the commands that load .kiln files (run, validate, bench, eval,
// inspect, verify): --min-version ID=N, --counter-file PATH, --now TIME, --ignore-validity. The
// rules themselves are serializer/trust_policy.h's.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "ir/status.h"
#include "serializer/trust_policy.h"

namespace kiln::cli {

struct TrustPolicyArgs {
  std::vector<std::string> min_versions;  // ID=N, repeatable
  std::string counter_file;
  std::string now;  // ISO 8601 UTC; empty: the system clock
  bool ignore_validity = false;

  Expected<TrustPolicy> ToPolicy() const;
};

void AddTrustPolicyFlags(CLI::App& cmd, TrustPolicyArgs* args);

}  // namespace kiln::cli
