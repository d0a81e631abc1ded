// revoked.txt: strict parsing, and a trust directory's revocation list in the TrustStore.
#include "serializer/revocation_list.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "serializer/signing.h"
#include "serializer/trust_store.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

TEST(RevocationListTest, ParsesIdsCommentsAndBlankLines) {
  auto ids = ParseRevocationList(
      "# revoked 2027-01-01: build machine compromised\n"
      "\n"
      "0123456789abcdef\n"
      "  FEDCBA9876543210   # upper case is the same id\r\n"
      "0123456789abcdef\n",
      "r");
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_EQ(*ids, (std::set<std::string>{"0123456789abcdef", "fedcba9876543210"}));
  EXPECT_TRUE(ParseRevocationList("", "r")->empty());
}

TEST(RevocationListTest, RefusesAnyOtherLineNamingIt) {
  for (const char* bad : {"0123456789abcde\n", "0123456789abcdef0\n", "0123456789abcdeg\n",
                          "0123456789abcdef 0123456789abcdef\n", "key.pub\n"}) {
    auto ids = ParseRevocationList(std::string("# fine\n") + bad, "trust/revoked.txt");
    ASSERT_FALSE(ids.ok()) << bad;
    EXPECT_NE(ids.status().message().find("'trust/revoked.txt' line 2"), std::string::npos)
        << ids.status().message();
  }
  EXPECT_FALSE(ParseRevocationList(std::string(kMaxRevocationFileBytes + 1, '#'), "r").ok());
}

TEST(RevocationListTest, TrustDirectoryReadsItsRevocationList) {
  const fs::path dir = fs::temp_directory_path() / ("kiln_revoked_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto key = signing::PrivateKey::Generate();
  ASSERT_TRUE(key.ok());
  ASSERT_TRUE(key->WritePair((dir / "release").string()).ok());
  fs::remove(dir / "release.key");
  const std::string id = key->public_key()->key_id();
  {
    TrustStore trust;
    ASSERT_TRUE(trust.AddDirectory(dir.string()).ok());
    EXPECT_NE(trust.Find(id), nullptr);
    EXPECT_FALSE(trust.IsRevoked(id));
  }
  std::ofstream(dir / kRevocationFileName) << "# leaked\n" << id << "\n";
  {
    TrustStore trust;
    ASSERT_TRUE(trust.AddDirectory(dir.string()).ok());
    EXPECT_NE(trust.Find(id), nullptr);  // still held, but revoked: revocation wins
    EXPECT_TRUE(trust.IsRevoked(id));
    EXPECT_EQ(trust.revoked_ids(), std::vector<std::string>{id});
  }
  std::ofstream(dir / kRevocationFileName, std::ios::app) << "not-a-key-id\n";
  {
    TrustStore trust;
    Status s = trust.AddDirectory(dir.string());
    ASSERT_FALSE(s.ok());  // a broken list must not silently un-revoke a key
    EXPECT_NE(s.message().find("line 3"), std::string::npos) << s.message();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace kiln
