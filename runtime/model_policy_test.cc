// Model::Load under a trust policy: version 6 refused after 7 (counter file, across "reboots",
// and minimum versions), revoked keys refused before the signature, expired and not-yet-valid
// files refused, a corrupt counter file refused and left alone, and `kiln sign`'s metadata
// rewrite. Every refusal names its rule.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "ir/op_schema.h"
#include "runtime/model.h"
#include "serializer/model_writer.h"
#include "serializer/version_counter.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

// x[1,4] -> Relu -> y
Graph TinyGraph() {
  Graph g;
  g.name = "tiny";
  Value x;
  x.name = "x";
  x.dtype = DType::kF32;
  x.shape = {1, 4};
  x.shape_known = true;
  const ValueId xi = g.AddValue(x);
  g.inputs().push_back(xi);
  Value y;
  y.name = "y";
  const ValueId yi = g.AddValue(y);
  Node n;
  n.name = "relu";
  n.op = OpType::kRelu;
  n.opset = 17;
  n.inputs = {xi};
  n.outputs = {yi};
  EXPECT_TRUE(InferNode(g, g.AddNode(std::move(n))).ok());
  g.outputs().push_back(yi);
  return g;
}

class ModelPolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("kiln_model_policy_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    key_ =
        std::make_unique<signing::PrivateKey>(std::move(signing::PrivateKey::Generate()).value());
    auto pub = key_->public_key();
    key_id_ = pub->key_id();
    ASSERT_TRUE(trust_.AddPublicKeyPem(*pub->ToPem()).ok());
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A signed (or unsigned) file with this identity and validity, written to dir_/NAME.
  std::string Write(const std::string& name, ModelMetadata meta, bool sign = true) {
    WriteOptions options;
    options.signing_key = sign ? key_.get() : nullptr;
    meta.created_unix = 1700000000;
    options.metadata = std::move(meta);
    const std::string path = (dir_ / name).string();
    EXPECT_TRUE(WriteModelFile(TinyGraph(), options, path).ok());
    return path;
  }
  static ModelMetadata Versioned(const std::string& id, uint64_t version) {
    ModelMetadata m;
    m.model_id = id;
    m.model_version = version;
    return m;
  }
  Status Load(const std::string& path, const LoadOptions& options) {
    auto m = Model::Load(path, trust_, options);
    return m.ok() ? Status::Ok() : m.status();
  }
  std::string Counter() const { return (dir_ / "counter").string(); }

  fs::path dir_;
  std::unique_ptr<signing::PrivateKey> key_;
  std::string key_id_;
  TrustStore trust_;
};

TEST_F(ModelPolicyTest, IdentityRoundTripsAndUnversionedFilesLoadWithoutPolicy) {
  ModelMetadata meta = Versioned("detector", 7);
  meta.not_before_unix = 1000;
  meta.not_after_unix = 4102444800;  // 2100-01-01
  auto model = Model::Load(Write("v7.kiln", meta), trust_);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const ModelMetadata& m = (*model)->info().metadata;
  EXPECT_EQ(m.model_id, "detector");
  EXPECT_EQ(m.model_version, 7u);
  EXPECT_EQ(m.not_before_unix, 1000);
  EXPECT_EQ(m.not_after_unix, 4102444800);
  EXPECT_EQ((*model)->info().format_minor, format::kMinorVersion);  // written as current
  auto plain = Model::Load(Write("plain.kiln", {}), trust_);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_TRUE(plain.value()->info().metadata.model_id.empty());
  EXPECT_FALSE(plain.value()->info().metadata.model_version.has_value());
}

TEST_F(ModelPolicyTest, VersionSixIsRefusedAfterSevenByTheCounterFileAcrossReboots) {
  const std::string v6 = Write("v6.kiln", Versioned("detector", 6));
  const std::string v7 = Write("v7.kiln", Versioned("detector", 7));
  LoadOptions options;
  options.policy.counter_file = Counter();
  ASSERT_TRUE(Load(v6, options).ok());  // nothing seen yet: 6 is fine and recorded
  EXPECT_EQ(*VersionCounter::Load(Counter())->Highest("detector"), 6u);
  ASSERT_TRUE(Load(v7, options).ok());
  EXPECT_EQ(*VersionCounter::Load(Counter())->Highest("detector"), 7u);
  // "Reboot": a fresh policy and trust store, only the counter file survives.
  LoadOptions after_reboot;
  after_reboot.policy.counter_file = Counter();
  Status s = Load(v6, after_reboot);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(RefusedRule(s), "rollback");
  EXPECT_NE(s.message().find("refused by rule 'rollback': model 'detector' version 6 < minimum 7"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(Load(v7, after_reboot).ok());  // the same version again is fine
  EXPECT_EQ(*VersionCounter::Load(Counter())->Highest("detector"), 7u);
  // Unversioned files are refused once a counter is kept.
  s = Load(Write("plain.kiln", {}), after_reboot);
  EXPECT_EQ(RefusedRule(s), "rollback") << s.message();
}

TEST_F(ModelPolicyTest, VersionSixIsRefusedByAMinimumVersion) {
  const std::string v6 = Write("v6.kiln", Versioned("detector", 6));
  LoadOptions options;
  options.policy.min_versions["detector"] = 7;
  Status s = Load(v6, options);
  EXPECT_EQ(RefusedRule(s), "rollback");
  EXPECT_NE(s.message().find("model 'detector' version 6 < minimum 7"), std::string::npos)
      << s.message();
  EXPECT_TRUE(Load(Write("v7.kiln", Versioned("detector", 7)), options).ok());
  // A file with the id but without a version would have been refused by the writer; one
  // without any identity is refused by the policy.
  EXPECT_EQ(RefusedRule(Load(Write("plain.kiln", {}), options)), "rollback");
}

TEST_F(ModelPolicyTest, UnsignedFilesAreCheckedButNeverMoveTheCounter) {
  LoadOptions options;
  options.allow_unsigned = true;
  options.policy.counter_file = Counter();
  ASSERT_TRUE(Load(Write("u9.kiln", Versioned("detector", 9), /*sign=*/false), options).ok());
  EXPECT_FALSE(fs::exists(Counter()));  // anyone can make an unsigned file
}

TEST_F(ModelPolicyTest, CorruptCounterFileIsRefusedAndLeftAsItIs) {
  const std::string v7 = Write("v7.kiln", Versioned("detector", 7));
  LoadOptions options;
  options.policy.counter_file = Counter();
  ASSERT_TRUE(Load(v7, options).ok());
  std::string text;
  {
    std::ifstream in(Counter(), std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (const std::string& bad : {text.substr(0, text.size() / 2), std::string(),
                                 std::string("kiln-version-counter 1\ndetector 1\n")}) {
    std::ofstream(Counter(), std::ios::binary | std::ios::trunc) << bad;
    Status s = Load(v7, options);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), StatusCode::kDataLoss);
    EXPECT_NE(s.message().find("counter file '" + Counter() + "'"), std::string::npos)
        << s.message();
    std::ifstream in(Counter(), std::ios::binary);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()),
              bad);  // not reset
  }
}

TEST_F(ModelPolicyTest, RevokedKeyIsRefusedBeforeTheSignatureIsChecked) {
  const std::string v7 = Write("v7.kiln", Versioned("detector", 7));
  ASSERT_TRUE(Load(v7, {}).ok());
  trust_.Revoke(key_id_);
  Status s = Load(v7, {});
  EXPECT_EQ(s.code(), StatusCode::kPermissionDenied);
  EXPECT_EQ(RefusedRule(s), "revocation");
  EXPECT_NE(s.message().find("key id " + key_id_ + ", which the trust store revokes"),
            std::string::npos)
      << s.message();
  // A broken signature by the revoked key still reads "revocation": the rule runs first.
  std::vector<uint8_t> bytes;
  {
    std::ifstream in(v7, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  bytes[bytes.size() - 40] ^= 0xff;  // inside the Ed25519 signature
  auto m = Model::LoadFromMemory(nullptr, bytes.data(), bytes.size(), trust_, {});
  EXPECT_EQ(RefusedRule(m.status()), "revocation") << m.status().message();
}

TEST_F(ModelPolicyTest, ExpiredAndNotYetValidFilesAreRefused) {
  ModelMetadata expired;
  expired.not_after_unix = 1577836800;  // 2020-01-01
  ModelMetadata future;
  future.not_before_unix = 4102444800;  // 2100-01-01
  const std::string expired_path = Write("expired.kiln", expired);
  const std::string future_path = Write("future.kiln", future);
  Status s = Load(expired_path, {});  // system clock
  EXPECT_EQ(RefusedRule(s), "not-after");
  EXPECT_NE(s.message().find("expired at 2020-01-01T00:00:00Z"), std::string::npos) << s.message();
  s = Load(future_path, {});
  EXPECT_EQ(RefusedRule(s), "not-before");
  EXPECT_NE(s.message().find("not valid before 2100-01-01T00:00:00Z"), std::string::npos)
      << s.message();
  LoadOptions at;
  at.policy.clock = ClockPolicy::kFixed;
  at.policy.now_unix = 1500000000;  // 2017
  EXPECT_TRUE(Load(expired_path, at).ok());
  EXPECT_EQ(RefusedRule(Load(future_path, at)), "not-before");
  LoadOptions no_clock;
  no_clock.policy.clock = ClockPolicy::kIgnoreValidity;
  EXPECT_TRUE(Load(expired_path, no_clock).ok());
  EXPECT_TRUE(Load(future_path, no_clock).ok());
}

TEST_F(ModelPolicyTest, SigningCanSetTheIdentityOfAnExistingFile) {
  const std::string plain = Write("plain.kiln", {}, /*sign=*/false);
  const std::string out = (dir_ / "signed.kiln").string();
  MetadataEdit edit = [](ModelMetadata* m) {
    m->model_id = "detector";
    m->model_version = 8;
    m->not_after_unix = 4102444800;
    return Status::Ok();
  };
  ASSERT_TRUE(SignModelFile(plain, *key_, out, edit).ok());
  auto model = Model::Load(out, trust_);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->info().metadata.model_id, "detector");
  EXPECT_EQ((*model)->info().metadata.model_version, 8u);
  EXPECT_EQ((*model)->info().metadata.source_name, "");  // the rest is kept
  EXPECT_EQ((*model)->info().metadata.created_unix, 1700000000);
  // A version alone bumps a file that already has an id; an id without a version is refused.
  ASSERT_TRUE(SignModelFile(out, *key_, out, [](ModelMetadata* m) {
                m->model_version = 9;
                return Status::Ok();
              }).ok());
  EXPECT_EQ(Model::Load(out, trust_).value()->info().metadata.model_version, 9u);
  Status s = SignModelFile(plain, *key_, out, [](ModelMetadata* m) {
    m->model_id = "detector";
    return Status::Ok();
  });
  EXPECT_NE(s.message().find("needs a model version"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace kiln
