// The version counter file: the highest model version a device has loaded, per model id, so
// that a device that once ran version 7 refuses 6 even after a reboot (rule 'rollback',
// serializer/trust_policy.h). It only moves forward.
//
// Text, one entry per line, sorted by id, then a SHA-256 of everything before that line:
//
//   kiln-version-counter 1
//   detector 7
//   classifier 12
//   sha256 <64 lowercase hex digits>
//
// The checksum is not a secret (anyone who can write the file can recompute it): it catches
// corruption (a flipped digit that would lower a version, a torn or truncated write), which is
// refused rather than read as "nothing seen yet". The file is replaced atomically (temporary
// file, fsync, rename, fsync of the folder), so a crash leaves the old or the new one.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "ir/status.h"

namespace kiln {

inline constexpr size_t kMaxCounterFileBytes = size_t{1} << 20;

class VersionCounter {
 public:
  // A missing file is an empty counter (a new device); any other read error, and a file that
  // does not parse exactly, is an error naming the file.
  static Expected<VersionCounter> Load(const std::string& path);
  static Expected<VersionCounter> Parse(std::string_view text, const std::string& what);

  // The highest version recorded for `id`, if any.
  std::optional<uint64_t> Highest(std::string_view id) const;
  // Records `version` for `id` unless a higher or equal one is there; true when it changed.
  bool Raise(const std::string& id, uint64_t version);
  const std::map<std::string, uint64_t, std::less<>>& entries() const { return entries_; }

  std::string Serialize() const;
  // Atomic replacement: PATH.tmp written and fsynced, renamed over PATH, folder fsynced.
  Status Save(const std::string& path) const;

 private:
  std::map<std::string, uint64_t, std::less<>> entries_;
};

// Re-reads `path` (refusing a corrupt file), raises `id` to `version` and saves it when that
// moved it forward. Calls within one process are serialised; the file is meant to have one
// writing process (the device's runtime).
Status AdvanceVersionCounter(const std::string& path, const std::string& id, uint64_t version);

}  // namespace kiln
