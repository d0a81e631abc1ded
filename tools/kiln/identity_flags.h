// The model identity flags of the commands that write or sign .kiln files (compile, quantize,
// sign): --model-id, --model-version, --not-before, --not-after. They go into the signed
// metadata (serializer/metadata.h), which the device's trust policy checks.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "ir/status.h"
#include "serializer/metadata.h"

namespace kiln::cli {

struct ModelIdentityArgs {
  std::string model_id;
  std::string model_version;  // parsed by Apply: the flag must reject "-1" and "7x" itself
  std::string not_before;     // ISO 8601 UTC
  std::string not_after;

  bool any() const {
    return !model_id.empty() || !model_version.empty() || !not_before.empty() || !not_after.empty();
  }
  // Sets what was given on `metadata` (kept fields stay), then checks the result: id syntax,
  // id and version together, not-before <= not-after.
  Status Apply(ModelMetadata* metadata) const;
};

void AddModelIdentityFlags(CLI::App& cmd, ModelIdentityArgs* args);

}  // namespace kiln::cli
