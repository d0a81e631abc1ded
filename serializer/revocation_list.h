// The revocation list of a trust directory (`revoked.txt`): key ids whose signatures are
// refused even when the key is otherwise trusted. A plain text file, not signed: it sits in the
// trust directory, which only the device's owner can write (docs/security.md), next to the
// keys it limits.
//
//   # comment lines and blank lines are ignored
//   0123456789abcdef            one key id per line: 16 hex digits (kiln keygen / verify)
//   fedcba9876543210  # why     a comment may follow the id
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "ir/status.h"

namespace kiln {

inline constexpr const char* kRevocationFileName = "revoked.txt";
inline constexpr size_t kMaxRevocationFileBytes = size_t{1} << 20;

// Every line must be blank, a comment, or one key id (lower-cased on reading); anything else
// fails the whole list, naming `what` and the line (a typo must not silently un-revoke a key).
Expected<std::set<std::string>> ParseRevocationList(std::string_view text, const std::string& what);
Expected<std::set<std::string>> ReadRevocationFile(const std::string& path);

}  // namespace kiln
