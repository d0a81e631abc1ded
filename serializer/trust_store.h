// TrustStore: the Ed25519 public keys a device accepts model signatures from, and the key ids it
// has revoked (refused before any signature is checked, even for a key it holds).
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
  // Every *.pub file in `dir` (not recursive), and its revocation list `revoked.txt` when
  // present (serializer/revocation_list.h); an error if a key or the list does not parse.
  Status AddDirectory(const std::string& dir);
  // Revokes every key id listed in a revocation list file.
  Status AddRevocationFile(const std::string& path);
  // Revokes one key id (16 hex digits; lower-cased).
  void Revoke(std::string_view key_id);
  // The directory named by $KILN_TRUST_DIR, if set.
  Status AddFromEnvironment();

  bool empty() const;
  std::vector<std::string> key_ids() const;
  // The key with this id, or nullptr.
  const signing::PublicKey* Find(std::string_view key_id) const;
  bool IsRevoked(std::string_view key_id) const;
  std::vector<std::string> revoked_ids() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kiln
