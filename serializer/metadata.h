// Provenance recorded in a .kiln file's metadata section.
#pragma once

#include <cstdint>
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
};

}  // namespace kiln
