// Ed25519 key files, key ids, signatures and the container's fixed records.
#include "serializer/signing.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "serializer/format.h"
#include "serializer/trust_store.h"

namespace kiln {
namespace {

std::string TempDir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("kiln_signing_" + name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

TEST(SigningTest, KeygenWritesPrivateKeyWithMode0600AndRefusesOverwrite) {
  const std::string dir = TempDir("keygen");
  auto key = signing::PrivateKey::Generate();
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(key->WritePair(dir + "/k").ok());
  struct stat st;
  ASSERT_EQ(::stat((dir + "/k.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  std::ifstream in(dir + "/k.key");
  std::string first;
  std::getline(in, first);
  EXPECT_EQ(first, "-----BEGIN PRIVATE KEY-----");  // PKCS#8
  Status again = key->WritePair(dir + "/k");
  EXPECT_FALSE(again.ok());
  EXPECT_NE(again.message().find("exists"), std::string::npos) << again.message();
  std::filesystem::remove_all(dir);
}

TEST(SigningTest, SignVerifyAndKeyIdsAcrossFiles) {
  const std::string dir = TempDir("sign");
  auto key = signing::PrivateKey::Generate();
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(key->WritePair(dir + "/a").ok());
  auto loaded = signing::PrivateKey::FromPemFile(dir + "/a.key");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  auto pub = signing::PublicKey::FromPemFile(dir + "/a.pub");
  ASSERT_TRUE(pub.ok()) << pub.status().ToString();
  auto derived = loaded->public_key();
  ASSERT_TRUE(derived.ok());
  EXPECT_EQ(pub->key_id(), derived->key_id());
  EXPECT_EQ(pub->key_id().size(), 16u);
  EXPECT_EQ(pub->key_id().find_first_not_of("0123456789abcdef"), std::string::npos);

  const std::string msg = "header and section table";
  auto sig = loaded->Sign(reinterpret_cast<const uint8_t*>(msg.data()), msg.size());
  ASSERT_TRUE(sig.ok());
  EXPECT_TRUE(pub->Verify(reinterpret_cast<const uint8_t*>(msg.data()), msg.size(), *sig));
  auto bad = *sig;
  bad[10] ^= 1;
  EXPECT_FALSE(pub->Verify(reinterpret_cast<const uint8_t*>(msg.data()), msg.size(), bad));
  std::string other = msg;
  other[0] ^= 1;
  EXPECT_FALSE(pub->Verify(reinterpret_cast<const uint8_t*>(other.data()), other.size(), *sig));

  TrustStore trust;
  ASSERT_TRUE(trust.AddDirectory(dir).ok());
  EXPECT_NE(trust.Find(pub->key_id()), nullptr);
  EXPECT_EQ(trust.Find("0000000000000000"), nullptr);
  std::filesystem::remove_all(dir);
}

TEST(SigningTest, RejectsNonEd25519AndGarbageKeys) {
  TrustStore trust;
  Status s = trust.AddPublicKeyPem("not a key");
  EXPECT_FALSE(s.ok());
  EXPECT_TRUE(trust.empty());
  EXPECT_FALSE(trust.AddDirectory("/nonexistent/kiln/keys").ok());
}

TEST(FormatTest, RecordsRoundTripLittleEndian) {
  format::Header h;
  h.flags = format::kFlagSigned;
  h.section_count = 3;
  h.file_size = 0x0102030405060708ull;
  h.signature_offset = 4096;
  uint8_t buf[format::kHeaderSize];
  format::EncodeHeader(h, buf);
  EXPECT_EQ(buf[0], 'K');
  EXPECT_EQ(buf[8], 1);  // major, little-endian
  EXPECT_EQ(buf[32], 0x08);
  EXPECT_EQ(buf[39], 0x01);
  format::Header d = format::DecodeHeader(buf);
  EXPECT_EQ(d.file_size, h.file_size);
  EXPECT_EQ(d.signature_offset, 4096u);
  EXPECT_EQ(d.section_count, 3u);
  EXPECT_EQ(d.flags, format::kFlagSigned);

  format::SectionEntry e;
  e.kind = 2;
  e.compression = 1;
  e.offset = 192;
  e.stored_size = 5;
  e.uncompressed_size = 9;
  e.sha256[0] = 0xab;
  uint8_t eb[format::kSectionEntrySize];
  format::EncodeSectionEntry(e, eb);
  format::SectionEntry de = format::DecodeSectionEntry(eb);
  EXPECT_EQ(de.offset, 192u);
  EXPECT_EQ(de.uncompressed_size, 9u);
  EXPECT_EQ(de.sha256[0], 0xab);
  EXPECT_EQ(format::SectionKindName(2), "weights");
  EXPECT_EQ(format::SectionKindName(99), "unknown(99)");
}

}  // namespace
}  // namespace kiln
