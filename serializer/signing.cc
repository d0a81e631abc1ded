// Ed25519 signing and verification with OpenSSL 3 EVP (EVP_DigestSign with a NULL digest, as
// Ed25519 hashes internally), key files and SHA-256.
#include "serializer/signing.h"

#include <fcntl.h>
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <vector>

#include "serializer/format.h"

namespace kiln::signing {
namespace {

std::string OpenSslError() {
  unsigned long e = ERR_get_error();
  ERR_clear_error();
  if (e == 0) return "unknown OpenSSL error";
  char buf[256];
  ERR_error_string_n(e, buf, sizeof(buf));
  return buf;
}

struct BioDeleter {
  void operator()(BIO* b) const { BIO_free(b); }
};
using BioPtr = std::unique_ptr<BIO, BioDeleter>;

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* c) const { EVP_MD_CTX_free(c); }
};
using MdCtxPtr = std::unique_ptr<EVP_MD_CTX, MdCtxDeleter>;

Expected<std::string> ReadSmallFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open key file '" + path + "'");
  std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (s.size() > 64 * 1024) return InvalidArgument("key file '" + path + "' is too large");
  return s;
}

std::string BioToString(BIO* bio) {
  char* data = nullptr;
  long n = BIO_get_mem_data(bio, &data);
  return std::string(data, static_cast<size_t>(n));
}

Status WriteAll(int fd, const std::string& data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return InvalidArgument("cannot write '" + path + "': " + std::strerror(errno));
    }
    done += static_cast<size_t>(n);
  }
  return Status::Ok();
}

Status WriteNewFile(const std::string& path, const std::string& data, mode_t mode) {
  // O_EXCL: refuse to clobber an existing key; the mode is set at creation, so there is no
  // moment where a private key file exists with wider permissions.
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) {
    return InvalidArgument("cannot create '" + path + "': " + std::strerror(errno));
  }
  Status s = WriteAll(fd, data, path);
  if (s.ok() && ::fchmod(fd, mode) != 0) {  // umask may only have narrowed it; pin it exactly
    s = InvalidArgument("cannot chmod '" + path + "': " + std::strerror(errno));
  }
  if (::close(fd) != 0 && s.ok()) {
    s = InvalidArgument("cannot close '" + path + "': " + std::strerror(errno));
  }
  if (!s.ok()) ::unlink(path.c_str());
  return s;
}

}  // namespace

void PkeyDeleter::operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }

Sha256Digest Sha256(const void* data, size_t size) {
  Sha256Digest d;
  unsigned int len = 0;
  EVP_Digest(data, size, d.data(), &len, EVP_sha256(), nullptr);
  return d;
}

Expected<std::string> Sha256FileHex(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open '" + path + "'");
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Internal("SHA-256 init failed: " + OpenSslError());
  }
  std::vector<char> buf(1 << 20);
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    if (in.gcount() > 0) EVP_DigestUpdate(ctx.get(), buf.data(), static_cast<size_t>(in.gcount()));
  }
  if (in.bad()) return DataLoss("read error on '" + path + "'");
  Sha256Digest d;
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), d.data(), &len);
  return format::HexEncode(d.data(), d.size());
}

std::string KeyIdFromRaw(const uint8_t raw[32]) {
  Sha256Digest d = Sha256(raw, 32);
  return format::HexEncode(d.data(), 8);  // 8 bytes = 16 hex digits
}

Expected<PublicKey> PublicKey::FromPkey(PkeyPtr key, const std::string& what) {
  if (EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519) {
    return InvalidArgument(what + " is not an Ed25519 key");
  }
  uint8_t raw[32];
  size_t len = sizeof(raw);
  if (EVP_PKEY_get_raw_public_key(key.get(), raw, &len) != 1 || len != 32) {
    return InvalidArgument(what + ": cannot read the raw public key: " + OpenSslError());
  }
  PublicKey pk;
  pk.key_ = std::move(key);
  pk.key_id_ = KeyIdFromRaw(raw);
  return pk;
}

Expected<PublicKey> PublicKey::FromPem(const std::string& pem, const std::string& what) {
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return Internal("BIO_new_mem_buf failed");
  PkeyPtr key(PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    return InvalidArgument(what +
                           " is not a PEM public key (SubjectPublicKeyInfo): " + OpenSslError());
  }
  return FromPkey(std::move(key), what);
}

Expected<PublicKey> PublicKey::FromPemFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string pem, ReadSmallFile(path));
  return FromPem(pem, "public key file '" + path + "'");
}

bool PublicKey::Verify(const uint8_t* msg, size_t size, const Ed25519Signature& sig) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx) return false;
  if (EVP_DigestVerifyInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1) {
    ERR_clear_error();
    return false;
  }
  const bool ok = EVP_DigestVerify(ctx.get(), sig.data(), sig.size(), msg, size) == 1;
  ERR_clear_error();
  return ok;
}

Expected<std::string> PublicKey::ToPem() const {
  BioPtr bio(BIO_new(BIO_s_mem()));
  if (!bio || PEM_write_bio_PUBKEY(bio.get(), key_.get()) != 1) {
    return Internal("PEM encoding failed: " + OpenSslError());
  }
  return BioToString(bio.get());
}

Expected<PrivateKey> PrivateKey::FromPemFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::string pem, ReadSmallFile(path));
  BioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  if (!bio) return Internal("BIO_new_mem_buf failed");
  PkeyPtr key(PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr));
  if (!key) {
    return InvalidArgument("key file '" + path + "' is not a PEM private key: " + OpenSslError());
  }
  if (EVP_PKEY_get_id(key.get()) != EVP_PKEY_ED25519) {
    return InvalidArgument("key file '" + path + "' is not an Ed25519 key");
  }
  PrivateKey k;
  k.key_ = std::move(key);
  return k;
}

Expected<PrivateKey> PrivateKey::Generate() {
  PkeyPtr key(EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519"));
  if (!key) return Internal("Ed25519 key generation failed: " + OpenSslError());
  PrivateKey k;
  k.key_ = std::move(key);
  return k;
}

Expected<PrivateKey> PrivateKey::FromRawSeed(const uint8_t seed[32]) {
  PkeyPtr key(EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nullptr, seed, 32));
  if (!key) return Internal("cannot build an Ed25519 key from a seed: " + OpenSslError());
  PrivateKey k;
  k.key_ = std::move(key);
  return k;
}

Expected<Ed25519Signature> PrivateKey::Sign(const uint8_t* msg, size_t size) const {
  MdCtxPtr ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestSignInit(ctx.get(), nullptr, nullptr, nullptr, key_.get()) != 1) {
    return Internal("EVP_DigestSignInit failed: " + OpenSslError());
  }
  Ed25519Signature sig;
  size_t len = sig.size();
  if (EVP_DigestSign(ctx.get(), sig.data(), &len, msg, size) != 1 || len != sig.size()) {
    return Internal("Ed25519 signing failed: " + OpenSslError());
  }
  return sig;
}

Expected<PublicKey> PrivateKey::public_key() const {
  uint8_t raw[32];
  size_t len = sizeof(raw);
  if (EVP_PKEY_get_raw_public_key(key_.get(), raw, &len) != 1 || len != 32) {
    return Internal("cannot derive the public key: " + OpenSslError());
  }
  PkeyPtr pub(EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nullptr, raw, sizeof(raw)));
  if (!pub) return Internal("cannot build the public key: " + OpenSslError());
  return PublicKey::FromPkey(std::move(pub), "derived public key");
}

Status PrivateKey::WritePair(const std::string& prefix) const {
  BioPtr priv_bio(BIO_new(BIO_s_mem()));
  BioPtr pub_bio(BIO_new(BIO_s_mem()));
  if (!priv_bio || !pub_bio) return Internal("BIO_new failed");
  if (PEM_write_bio_PrivateKey(priv_bio.get(), key_.get(), nullptr, nullptr, 0, nullptr, nullptr) !=
          1 ||
      PEM_write_bio_PUBKEY(pub_bio.get(), key_.get()) != 1) {
    return Internal("PEM encoding failed: " + OpenSslError());
  }
  const std::string key_path = prefix + ".key";
  const std::string pub_path = prefix + ".pub";
  struct stat st;
  if (::stat(pub_path.c_str(), &st) == 0) {
    return InvalidArgument("'" + pub_path + "' already exists; refusing to overwrite");
  }
  KILN_RETURN_IF_ERROR(WriteNewFile(key_path, BioToString(priv_bio.get()), 0600));
  Status s = WriteNewFile(pub_path, BioToString(pub_bio.get()), 0644);
  if (!s.ok()) ::unlink(key_path.c_str());
  return s;
}

}  // namespace kiln::signing
