// The signed identity of a model file (model id + version) and its validity window: their
// syntax and consistency, checked by the writer before it writes them and by the reader
// before the trust policy reads them (serializer/trust_policy.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "ir/status.h"
#include "serializer/metadata.h"

namespace kiln {

inline constexpr size_t kMaxModelIdChars = 128;

// 1..128 characters of [A-Za-z0-9._-]: safe to print, to use as a counter-file key and in
// `ID=N` flags without quoting.
bool IsValidModelId(std::string_view id);

// Id syntax; id and version both present or both absent; not_before <= not_after.
Status CheckModelIdentity(const ModelMetadata& metadata);

// A decimal version 0..18446744073709551615 (digits only: no sign, no leading zeros). `what`
// names the input.
Expected<uint64_t> ParseModelVersion(std::string_view text, const std::string& what);

}  // namespace kiln
