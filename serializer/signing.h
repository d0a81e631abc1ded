// Ed25519 keys, key ids, signing and verification (OpenSSL 3 EVP), and SHA-256.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "ir/status.h"

typedef struct evp_pkey_st EVP_PKEY;

namespace kiln::signing {

using Sha256Digest = std::array<uint8_t, 32>;
using Ed25519Signature = std::array<uint8_t, 64>;

Sha256Digest Sha256(const void* data, size_t size);
// Hex SHA-256 of a whole file (streamed, no full read into memory).
Expected<std::string> Sha256FileHex(const std::string& path);

struct PkeyDeleter {
  void operator()(EVP_PKEY* k) const;
};
using PkeyPtr = std::unique_ptr<EVP_PKEY, PkeyDeleter>;

// An Ed25519 public key and its id (first 16 hex digits of SHA-256 of the raw 32 bytes).
class PublicKey {
 public:
  // SubjectPublicKeyInfo PEM ("-----BEGIN PUBLIC KEY-----"); refuses non-Ed25519 keys.
  static Expected<PublicKey> FromPem(const std::string& pem, const std::string& what);
  static Expected<PublicKey> FromPemFile(const std::string& path);
  const std::string& key_id() const { return key_id_; }
  bool Verify(const uint8_t* msg, size_t size, const Ed25519Signature& sig) const;
  Expected<std::string> ToPem() const;  // SubjectPublicKeyInfo PEM
  EVP_PKEY* pkey() const { return key_.get(); }

 private:
  static Expected<PublicKey> FromPkey(PkeyPtr key, const std::string& what);
  PkeyPtr key_;
  std::string key_id_;
  friend class PrivateKey;
};

// An Ed25519 private key (PKCS#8 PEM on disk).
class PrivateKey {
 public:
  static Expected<PrivateKey> FromPemFile(const std::string& path);
  static Expected<PrivateKey> Generate();
  // From a raw 32-byte Ed25519 seed: deterministic keys for fuzzers and tests only.
  static Expected<PrivateKey> FromRawSeed(const uint8_t seed[32]);
  Expected<Ed25519Signature> Sign(const uint8_t* msg, size_t size) const;
  Expected<PublicKey> public_key() const;
  // Writes PREFIX.key (PKCS#8 PEM, created 0600 with O_EXCL: never world-readable, never
  // overwriting an existing key) and PREFIX.pub (SubjectPublicKeyInfo PEM).
  Status WritePair(const std::string& prefix) const;

 private:
  PkeyPtr key_;
};

// Key id of a raw 32-byte Ed25519 public key.
std::string KeyIdFromRaw(const uint8_t raw[32]);

}  // namespace kiln::signing
