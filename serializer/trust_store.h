// TrustStore: the Ed25519 public keys a device accepts model signatures from.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ir/status.h"

namespace kiln {

namespace signing {
class PublicKey;
}

// Environment variable naming a directory of trusted *.pub files.
inline constexpr const char* kTrustDirEnv = "KILN_TRUST_DIR";

class TrustStore {
 public:
  TrustStore();
  ~TrustStore();
  TrustStore(TrustStore&&) noexcept;
  TrustStore& operator=(TrustStore&&) noexcept;

  // A SubjectPublicKeyInfo PEM file holding an Ed25519 key.
  Status AddPublicKeyFile(const std::string& path);
  Status AddPublicKeyPem(const std::string& pem);
  // Every *.pub file in `dir` (not recursive); an error if one of them is not a valid key.
  Status AddDirectory(const std::string& dir);
  // The directory named by $KILN_TRUST_DIR, if set.
  Status AddFromEnvironment();

  bool empty() const;
  std::vector<std::string> key_ids() const;
  // The key with this id, or nullptr.
  const signing::PublicKey* Find(std::string_view key_id) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
