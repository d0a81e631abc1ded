// The trust policy's rules on metadata alone: rollback (minimum versions, counter file,
// unversioned files), validity against the clock, and the rule named in every refusal.
#include "serializer/trust_policy.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "serializer/model_identity.h"
#include "serializer/version_counter.h"

namespace kiln {
namespace {

ModelMetadata Versioned(const std::string& id, uint64_t version) {
  ModelMetadata m;
  m.model_id = id;
  m.model_version = version;
  return m;
}

TEST(TrustPolicyTest, EmptyPolicyAcceptsEverything) {
  EXPECT_TRUE(CheckTrustPolicy(ModelMetadata(), TrustPolicy()).ok());
  EXPECT_TRUE(CheckTrustPolicy(Versioned("a", 0), TrustPolicy()).ok());
}

TEST(TrustPolicyTest, MinimumVersionsRefuseOlderAndUnversionedFiles) {
  TrustPolicy p;
  p.min_versions["detector"] = 7;
  EXPECT_TRUE(CheckTrustPolicy(Versioned("detector", 7), p).ok());
  EXPECT_TRUE(CheckTrustPolicy(Versioned("detector", 8), p).ok());
  EXPECT_TRUE(CheckTrustPolicy(Versioned("other", 1), p).ok());  // no minimum for this id
  Status s = CheckTrustPolicy(Versioned("detector", 6), p);
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(s.message(),
            "refused by rule 'rollback': model 'detector' version 6 < minimum 7 (minimum "
            "version policy)");
  EXPECT_EQ(RefusedRule(s), "rollback");
  EXPECT_EQ(RefusedRule(s.WithContext("model 'x.kiln'")), "rollback");
  // An unversioned file could be an older build of any model: refused once versions matter.
  s = CheckTrustPolicy(ModelMetadata(), p);
  EXPECT_EQ(RefusedRule(s), "rollback");
  EXPECT_NE(s.message().find("no id and version"), std::string::npos) << s.message();
}

TEST(TrustPolicyTest, CounterFileIsAMinimumAndACorruptOneRefuses) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("kiln_policy_" + std::to_string(::getpid())))
          .string();
  std::filesystem::create_directories(dir);
  TrustPolicy p;
  p.counter_file = dir + "/counter";
  EXPECT_TRUE(CheckTrustPolicy(Versioned("detector", 6), p).ok());  // nothing seen yet
  ASSERT_TRUE(RecordVerifiedLoad(Versioned("detector", 7), p).ok());
  Status s = CheckTrustPolicy(Versioned("detector", 6), p);
  EXPECT_EQ(RefusedRule(s), "rollback");
  EXPECT_NE(s.message().find("version 6 < minimum 7 (counter file"), std::string::npos)
      << s.message();
  EXPECT_TRUE(CheckTrustPolicy(Versioned("detector", 7), p).ok());
  // update_counter = false (kiln verify): checks, never records.
  p.update_counter = false;
  ASSERT_TRUE(RecordVerifiedLoad(Versioned("detector", 9), p).ok());
  EXPECT_EQ(*VersionCounter::Load(p.counter_file)->Highest("detector"), 7u);
  std::ofstream(p.counter_file, std::ios::trunc) << "kiln-version-counter 1\ndetector 1\n";
  s = CheckTrustPolicy(Versioned("detector", 7), p);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find(p.counter_file), std::string::npos) << s.message();
  EXPECT_EQ(RefusedRule(s), "");
  std::filesystem::remove_all(dir);
}

TEST(TrustPolicyTest, ValidityWindowIsInclusiveAndNamesTheRule) {
  ModelMetadata m;
  m.not_before_unix = 1000;
  m.not_after_unix = 2000;
  TrustPolicy p;
  p.clock = ClockPolicy::kFixed;
  for (int64_t now : {1000, 1500, 2000}) {
    p.now_unix = now;
    EXPECT_TRUE(CheckTrustPolicy(m, p).ok()) << now;
  }
  p.now_unix = 999;
  Status s = CheckTrustPolicy(m, p);
  EXPECT_EQ(RefusedRule(s), "not-before");
  EXPECT_EQ(s.message(),
            "refused by rule 'not-before': the model is not valid before 1970-01-01T00:16:40Z "
            "(now 1970-01-01T00:16:39Z)");
  p.now_unix = 2001;
  s = CheckTrustPolicy(m, p);
  EXPECT_EQ(RefusedRule(s), "not-after");
  EXPECT_NE(s.message().find("expired at 1970-01-01T00:33:20Z"), std::string::npos);
  p.clock = ClockPolicy::kIgnoreValidity;  // no trusted clock: the window is not checked
  EXPECT_TRUE(CheckTrustPolicy(m, p).ok());
  p.clock = ClockPolicy::kSystem;  // today is after 1970
  EXPECT_EQ(RefusedRule(CheckTrustPolicy(m, p)), "not-after");
}

TEST(ModelIdentityTest, SyntaxAndConsistency) {
  EXPECT_TRUE(IsValidModelId("mobilenet-v2_int8.q"));
  for (const char* bad : {"", "a b", "a/b", "a=b", "é"}) EXPECT_FALSE(IsValidModelId(bad)) << bad;
  EXPECT_FALSE(IsValidModelId(std::string(kMaxModelIdChars + 1, 'a')));
  EXPECT_TRUE(IsValidModelId(std::string(kMaxModelIdChars, 'a')));
  ModelMetadata m;
  EXPECT_TRUE(CheckModelIdentity(m).ok());
  m.model_id = "a";
  EXPECT_FALSE(CheckModelIdentity(m).ok());  // id without version
  m.model_version = 3;
  EXPECT_TRUE(CheckModelIdentity(m).ok());
  m.model_id.clear();
  EXPECT_FALSE(CheckModelIdentity(m).ok());  // version without id
  m.model_id = "a";
  m.not_before_unix = 5;
  m.not_after_unix = 4;
  EXPECT_FALSE(CheckModelIdentity(m).ok());
  EXPECT_EQ(*ParseModelVersion("18446744073709551615", "v"), UINT64_MAX);
  EXPECT_EQ(*ParseModelVersion("0", "v"), 0u);
  for (const char* bad : {"", "-1", "+1", "1.0", "7x", "18446744073709551616", " 7", "07"}) {
    EXPECT_FALSE(ParseModelVersion(bad, "v").ok()) << bad;
  }
}

}  // namespace
}  // namespace kiln
