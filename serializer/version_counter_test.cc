// The version counter file: it only moves forward, is replaced atomically, and any corruption
// (every flipped byte, every truncation) is refused rather than read as "nothing seen".
#include "serializer/version_counter.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "serializer/format.h"
#include "serializer/signing.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

std::string TempDir(const std::string& name) {
  auto dir =
      fs::temp_directory_path() / ("kiln_counter_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

VersionCounter Sample() {
  VersionCounter c;
  c.Raise("detector", 7);
  c.Raise("classifier", 12);
  return c;
}

TEST(VersionCounterTest, RaisesOnlyForwardAndRoundTrips) {
  VersionCounter c = Sample();
  EXPECT_FALSE(c.Raise("detector", 6));
  EXPECT_FALSE(c.Raise("detector", 7));
  EXPECT_EQ(*c.Highest("detector"), 7u);
  EXPECT_TRUE(c.Raise("detector", 8));
  EXPECT_EQ(*c.Highest("detector"), 8u);
  EXPECT_FALSE(c.Highest("other").has_value());
  const std::string text = c.Serialize();
  EXPECT_EQ(text.rfind("kiln-version-counter 1\nclassifier 12\ndetector 8\nsha256 ", 0), 0u)
      << text;
  auto back = VersionCounter::Parse(text, "c");
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->entries(), c.entries());
  EXPECT_TRUE(VersionCounter::Parse(VersionCounter().Serialize(), "empty").ok());
}

TEST(VersionCounterTest, MissingFileIsEmptySaveIsAtomicAndAdvanceOnlyMovesForward) {
  const std::string dir = TempDir("save");
  const std::string path = dir + "/counter";
  auto empty = VersionCounter::Load(path);
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_TRUE(empty->entries().empty());
  ASSERT_TRUE(AdvanceVersionCounter(path, "detector", 7).ok());
  ASSERT_TRUE(AdvanceVersionCounter(path, "detector", 6).ok());  // no effect
  auto c = VersionCounter::Load(path);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(*c->Highest("detector"), 7u);
  EXPECT_FALSE(fs::exists(path + ".tmp"));  // renamed over the file, nothing left behind
  // A stale temporary file from a crash does not matter: it is replaced.
  std::ofstream(path + ".tmp") << "half a write";
  ASSERT_TRUE(AdvanceVersionCounter(path, "detector", 9).ok());
  EXPECT_EQ(*VersionCounter::Load(path)->Highest("detector"), 9u);
  EXPECT_FALSE(fs::exists(path + ".tmp"));
  // An unwritable place is an error, not a silent skip.
  Status s = AdvanceVersionCounter(dir + "/no/such/dir/counter", "detector", 1);
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("counter file"), std::string::npos) << s.message();
  fs::remove_all(dir);
}

TEST(VersionCounterTest, EveryFlippedByteAndEveryTruncationIsRefused) {
  const std::string text = Sample().Serialize();
  for (size_t i = 0; i < text.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string bad = text;
      bad[i] = static_cast<char>(bad[i] ^ (1 << bit));
      auto c = VersionCounter::Parse(bad, "c");
      EXPECT_FALSE(c.ok()) << "byte " << i << " bit " << bit << " accepted";
    }
  }
  for (size_t len = 0; len < text.size(); ++len) {
    auto c = VersionCounter::Parse(text.substr(0, len), "c");
    EXPECT_FALSE(c.ok()) << "truncation to " << len << " accepted";
  }
}

TEST(VersionCounterTest, CorruptFileIsRefusedNamingItAndNeverReset) {
  const std::string dir = TempDir("corrupt");
  const std::string path = dir + "/counter";
  ASSERT_TRUE(Sample().Save(path).ok());
  std::string text = ReadAll(path);
  text[text.find("detector 7") + 9] = '6';  // a digit that would roll the version back
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  auto c = VersionCounter::Load(path);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(c.status().message().find("'" + path + "'"), std::string::npos);
  EXPECT_NE(c.status().message().find("checksum"), std::string::npos) << c.status().message();
  // Advancing refuses too and leaves the file as it was.
  EXPECT_FALSE(AdvanceVersionCounter(path, "detector", 8).ok());
  EXPECT_EQ(ReadAll(path), text);
  for (const std::string& bad : {std::string(), std::string("\n"), std::string("garbage\n"),
                                 std::string("kiln-version-counter 1\n")}) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << bad;
    EXPECT_FALSE(VersionCounter::Load(path).ok()) << "'" << bad << "'";
  }
  fs::remove_all(dir);
}

TEST(VersionCounterTest, InvalidEntriesWithAValidChecksumAreRefused) {
  // The checksum as the writer computes it, so only the entries are wrong.
  auto with_sum = [](const std::string& body) {
    const signing::Sha256Digest d = signing::Sha256(body.data(), body.size());
    return body + "sha256 " + format::HexEncode(d.data(), d.size()) + "\n";
  };
  const std::string header = "kiln-version-counter 1\n";
  ASSERT_TRUE(VersionCounter::Parse(with_sum(header + "detector 7\n"), "c").ok());
  for (const std::string& body :
       {header + "detector 7\ndetector 8\n", header + "b 1\na 1\n", header + "bad!id 7\n",
        header + "detector 07\n", header + "detector -1\n", header + "detector\n",
        header + "detector 99999999999999999999\n", header + "detector 7 \n",
        header + "detector  7\n", header + "\n", std::string("kiln-version-counter 2\n"),
        std::string("detector 7\n")}) {
    auto c = VersionCounter::Parse(with_sum(body), "c");
    EXPECT_FALSE(c.ok()) << body;
  }
}

}  // namespace
}  // namespace kiln
