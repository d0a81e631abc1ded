// TrustStore: key ids mapped to parsed Ed25519 public keys.
#include "serializer/trust_store.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

#include "serializer/revocation_list.h"
#include "serializer/signing.h"

namespace kiln {

struct TrustStore::Impl {
  std::map<std::string, signing::PublicKey, std::less<>> keys;
  std::set<std::string, std::less<>> revoked;
};

TrustStore::TrustStore() : impl_(std::make_unique<Impl>()) {}
TrustStore::~TrustStore() = default;
TrustStore::TrustStore(TrustStore&&) noexcept = default;
TrustStore& TrustStore::operator=(TrustStore&&) noexcept = default;

Status TrustStore::AddPublicKeyFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(signing::PublicKey key, signing::PublicKey::FromPemFile(path));
  std::string id = key.key_id();
  impl_->keys.insert_or_assign(std::move(id), std::move(key));
  return Status::Ok();
}

Status TrustStore::AddPublicKeyPem(const std::string& pem) {
  KILN_ASSIGN_OR_RETURN(signing::PublicKey key, signing::PublicKey::FromPem(pem, "public key"));
  std::string id = key.key_id();
  impl_->keys.insert_or_assign(std::move(id), std::move(key));
  return Status::Ok();
}

Status TrustStore::AddDirectory(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) return NotFound("trust directory '" + dir + "' does not exist");
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".pub" && entry.is_regular_file(ec)) {
      files.push_back(entry.path().string());
    }
  }
  if (ec) return InvalidArgument("cannot list trust directory '" + dir + "': " + ec.message());
  std::sort(files.begin(), files.end());  // deterministic error messages
  for (const auto& f : files) KILN_RETURN_IF_ERROR(AddPublicKeyFile(f));
  const fs::path revoked = fs::path(dir) / kRevocationFileName;
  if (fs::exists(revoked, ec)) KILN_RETURN_IF_ERROR(AddRevocationFile(revoked.string()));
  return Status::Ok();
}

Status TrustStore::AddRevocationFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::set<std::string> ids, ReadRevocationFile(path));
  impl_->revoked.insert(ids.begin(), ids.end());
  return Status::Ok();
}

void TrustStore::Revoke(std::string_view key_id) {
  std::string id(key_id);
  for (char& c : id) c = (c >= 'A' && c <= 'F') ? static_cast<char>(c - 'A' + 'a') : c;
  impl_->revoked.insert(std::move(id));
}

bool TrustStore::IsRevoked(std::string_view key_id) const {
  return impl_->revoked.find(key_id) != impl_->revoked.end();
}

std::vector<std::string> TrustStore::revoked_ids() const {
  return {impl_->revoked.begin(), impl_->revoked.end()};
}

Status TrustStore::AddFromEnvironment() {
  const char* dir = std::getenv(kTrustDirEnv);
  if (dir == nullptr || *dir == '\0') return Status::Ok();
  return AddDirectory(dir).WithContext(kTrustDirEnv);
}

bool TrustStore::empty() const { return impl_->keys.empty(); }

std::vector<std::string> TrustStore::key_ids() const {
  std::vector<std::string> ids;
  for (const auto& [id, key] : impl_->keys) ids.push_back(id);
  return ids;
}

const signing::PublicKey* TrustStore::Find(std::string_view key_id) const {
  auto it = impl_->keys.find(key_id);
  return it == impl_->keys.end() ? nullptr : &it->second;
}

}  // namespace kiln
