// The trust policy through the built `kiln` binary: compile/sign with --model-id,
// --model-version, --not-before/--not-after; verify/run with --min-version, --counter-file,
// --now, --ignore-validity and a trust directory's revoked.txt. Every refusal exits non-zero
// and names its rule; bad flag values fail cleanly.
#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>

#include "calibration/npy_io.h"
#include "serializer/format.h"
#include "serializer/signing.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using testing::CliResult;

class CliTrustTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::path(::testing::TempDir()) / ("kiln_cli_trust_" + std::to_string(getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "trust");
    WriteTinyModel();
    HostTensor x("x", DType::kF32, {1, 4});
    const float v[] = {-1.f, 2.f, -3.f, 4.f};
    std::memcpy(x.bytes.data(), v, sizeof(v));
    ASSERT_TRUE(WriteNpyFile(Path("x.npy"), x).ok());
    ASSERT_EQ(Kiln("keygen --out " + Q(Path("release"))).code, 0);
    fs::copy_file(Path("release.pub"), dir_ / "trust" / "release.pub");
    auto pub = signing::PublicKey::FromPemFile(Path("release.pub"));
    ASSERT_TRUE(pub.ok());
    key_id_ = pub->key_id();
    for (int v : {6, 7}) {
      const CliResult r =
          Kiln("compile " + Q(Path("tiny.onnx")) + " -o " +
               Q(Path("v" + std::to_string(v) + ".kiln")) + " --sign-key " +
               Q(Path("release.key")) + " --model-id tiny --model-version " + std::to_string(v));
      ASSERT_EQ(r.code, 0) << r.err;
    }
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  static std::string Path(const std::string& name) { return (dir_ / name).string(); }
  static std::string Q(const std::string& s) { return testing::ShellQuote(s); }
  static CliResult Kiln(const std::string& args) { return testing::RunKiln(args, dir_.string()); }
  static std::string Pub() { return " --pub " + Q(Path("release.pub")); }
  static std::string Run(const std::string& model) {
    return "run " + Q(Path(model)) + " --input x=" + Q(Path("x.npy")) + " --output-dir " +
           Q(Path("out"));
  }

  // y = Relu(x), x: float [1,4].
  static void WriteTinyModel() {
    onnx::ModelProto m;
    m.set_ir_version(8);
    m.add_opset_import()->set_version(17);
    auto* g = m.mutable_graph();
    g->set_name("g");
    for (auto* vi : {g->add_input(), g->add_output()}) {
      vi->set_name(vi == &g->input(0) ? "x" : "y");
      auto* tt = vi->mutable_type()->mutable_tensor_type();
      tt->set_elem_type(onnx::TensorProto::FLOAT);
      tt->mutable_shape()->add_dim()->set_dim_value(1);
      tt->mutable_shape()->add_dim()->set_dim_value(4);
    }
    auto* n = g->add_node();
    n->set_op_type("Relu");
    n->add_input("x");
    n->add_output("y");
    std::ofstream out(Path("tiny.onnx"), std::ios::binary);
    ASSERT_TRUE(m.SerializeToOstream(&out));
  }

  static void ExpectRefused(const CliResult& r, const std::string& rule, const std::string& why,
                            bool verify) {
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.code, 1) << r.out << r.err;
    const std::string& text = verify ? r.out : r.err;
    EXPECT_NE(text.find("refused by rule '" + rule + "': " + why), std::string::npos) << text;
    if (verify) {
      EXPECT_NE(r.out.find("verify: FAILED (refused by rule '" + rule + "')"), std::string::npos)
          << r.out;
    }
  }

  static fs::path dir_;
  static std::string key_id_;
};
fs::path CliTrustTest::dir_;
std::string CliTrustTest::key_id_;

TEST_F(CliTrustTest, VerifyPrintsIdentityAndIsoTimes) {
  const CliResult r = Kiln("verify " + Q(Path("v7.kiln")) + Pub() + " --min-version tiny=7");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("format: 1." + std::to_string(format::kMinorVersion)), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("model: id tiny, version 7\n"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("created: \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:"
                                                  "\\d\\dZ\n")))
      << r.out;
  EXPECT_NE(r.out.find("validity: no limits"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("policy: OK (rollback: version 7 >= 7 (--min-version)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("verify: OK"), std::string::npos) << r.out;
}

// kiln quantize writes the identity into the int8 file's signed metadata, as compile does.
TEST_F(CliTrustTest, QuantizeWritesTheIdentity) {
  fs::create_directories(dir_ / "calib");
  fs::copy_file(Path("x.npy"), dir_ / "calib" / "x.npy", fs::copy_options::overwrite_existing);
  const CliResult q =
      Kiln("quantize " + Q(Path("tiny.onnx")) + " --calib " + Q(Path("calib")) + " -o " +
           Q(Path("q9.kiln")) + " --sign-key " + Q(Path("release.key")) +
           " --model-id tiny-int8 --model-version 9 --not-after " + "2100-01-01T00:00:00Z -q");
  ASSERT_EQ(q.code, 0) << q.out << q.err;
  const CliResult r = Kiln("verify " + Q(Path("q9.kiln")) + Pub() + " --min-version tiny-int8=9");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("model: id tiny-int8, version 9\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not after 2100-01-01T00:00:00Z"), std::string::npos) << r.out;
  ExpectRefused(Kiln("verify " + Q(Path("q9.kiln")) + Pub() + " --min-version tiny-int8=10"),
                "rollback", "model 'tiny-int8' version 9 < minimum 10", /*verify=*/true);
}

TEST_F(CliTrustTest, MinVersionRefusesOlderVersion) {
  ExpectRefused(Kiln("verify " + Q(Path("v6.kiln")) + Pub() + " --min-version tiny=7"), "rollback",
                "model 'tiny' version 6 < minimum 7", true);
  ExpectRefused(Kiln(Run("v6.kiln") + Pub() + " --min-version tiny=7"), "rollback",
                "model 'tiny' version 6 < minimum 7", false);
  EXPECT_EQ(Kiln(Run("v7.kiln") + Pub() + " --min-version tiny=7").code, 0);
}

TEST_F(CliTrustTest, CounterFileRefusesSixAfterSevenAndACorruptCounter) {
  const std::string counter = Path("counter");
  fs::remove(counter);
  ASSERT_EQ(Kiln(Run("v7.kiln") + Pub() + " --counter-file " + Q(counter)).code, 0);
  ExpectRefused(Kiln(Run("v6.kiln") + Pub() + " --counter-file " + Q(counter)), "rollback",
                "model 'tiny' version 6 < minimum 7 (counter file", false);
  ExpectRefused(Kiln("verify " + Q(Path("v6.kiln")) + Pub() + " --counter-file " + Q(counter)),
                "rollback", "model 'tiny' version 6 < minimum 7", true);
  // verify never moves the counter; a corrupt counter refuses the load and stays as it is.
  std::ofstream(counter, std::ios::app) << "tiny 99\n";
  const CliResult r = Kiln(Run("v7.kiln") + Pub() + " --counter-file " + Q(counter));
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("counter file '" + counter + "'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("not reset"), std::string::npos) << r.err;
  std::ifstream in(counter);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("tiny 99"), std::string::npos);
}

TEST_F(CliTrustTest, RevokedKeyIsRefusedWithTheRuleNamed) {
  const std::string trust = Path("trust");
  ASSERT_EQ(Kiln("verify " + Q(Path("v7.kiln")) + " --trust-dir " + Q(trust)).code, 0);
  std::ofstream(trust + "/revoked.txt") << "# leaked on 2027-01-01\n" << key_id_ << "\n";
  ExpectRefused(Kiln("verify " + Q(Path("v7.kiln")) + " --trust-dir " + Q(trust)), "revocation",
                "model is signed by key id " + key_id_, true);
  ExpectRefused(Kiln(Run("v7.kiln") + " --trust-dir " + Q(trust)), "revocation",
                "model is signed by key id " + key_id_, false);
  fs::remove(trust + "/revoked.txt");
}

TEST_F(CliTrustTest, ExpiredAndNotYetValidFilesAreRefused) {
  const std::string key = " --sign-key " + Q(Path("release.key"));
  ASSERT_EQ(Kiln("compile " + Q(Path("tiny.onnx")) + " -o " + Q(Path("expired.kiln")) + key +
                 " --not-after 2020-01-01T00:00:00Z")
                .code,
            0);
  ASSERT_EQ(Kiln("compile " + Q(Path("tiny.onnx")) + " -o " + Q(Path("future.kiln")) + key +
                 " --not-before 2999-01-01T00:00:00Z")
                .code,
            0);
  ExpectRefused(Kiln("verify " + Q(Path("expired.kiln")) + Pub()), "not-after",
                "the model expired at 2020-01-01T00:00:00Z", true);
  ExpectRefused(Kiln(Run("expired.kiln") + Pub()), "not-after",
                "the model expired at 2020-01-01T00:00:00Z", false);
  ExpectRefused(Kiln("verify " + Q(Path("future.kiln")) + Pub()), "not-before",
                "the model is not valid before 2999-01-01T00:00:00Z", true);
  CliResult r = Kiln("verify " + Q(Path("expired.kiln")) + Pub() + " --now 2019-06-01T00:00:00Z");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("validity: not before -, not after 2020-01-01T00:00:00Z"), std::string::npos)
      << r.out;
  r = Kiln("verify " + Q(Path("future.kiln")) + Pub() + " --ignore-validity");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("validity: NOT checked (--ignore-validity)"), std::string::npos) << r.out;
}

TEST_F(CliTrustTest, SignSetsTheIdentityOfACompiledFile) {
  ASSERT_EQ(Kiln("compile " + Q(Path("tiny.onnx")) + " -o " + Q(Path("plain.kiln"))).code, 0);
  CliResult r = Kiln("sign " + Q(Path("plain.kiln")) + " --key " + Q(Path("release.key")) + " -o " +
                     Q(Path("signed.kiln")) + " --model-id tiny --model-version 9" +
                     " --not-after 2999-01-01T00:00:00Z");
  ASSERT_EQ(r.code, 0) << r.err;
  r = Kiln("verify " + Q(Path("signed.kiln")) + Pub() + " --min-version tiny=8");
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_NE(r.out.find("model: id tiny, version 9"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not after 2999-01-01T00:00:00Z"), std::string::npos) << r.out;
  // A versioned file of another id passes a policy that names only other ids; an unversioned
  // file is refused once versions are required at all.
  r = Kiln("verify " + Q(Path("v7.kiln")) + Pub() + " --min-version other=1");
  EXPECT_EQ(r.code, 0) << r.out;
  r = Kiln("compile " + Q(Path("tiny.onnx")) + " -o " + Q(Path("p2.kiln")) + " --sign-key " +
           Q(Path("release.key")));
  ASSERT_EQ(r.code, 0);
  ExpectRefused(Kiln("verify " + Q(Path("p2.kiln")) + Pub() + " --min-version tiny=1"), "rollback",
                "the model has no id and version", true);
}

TEST_F(CliTrustTest, BadFlagValuesFailCleanly) {
  const std::string compile = "compile " + Q(Path("tiny.onnx")) + " -o " + Q(Path("bad.kiln"));
  struct Case {
    std::string args, needle;
  };
  for (const Case& c : std::vector<Case>{
           {compile + " --not-after 2027-13-01T00:00:00Z", "--not-after"},
           {compile + " --not-before yesterday", "YYYY-MM-DDTHH:MM:SSZ"},
           {compile + " --model-id tiny --model-version -1", "--model-version"},
           {compile + " --model-id tiny", "needs a model version"},
           {compile + " --model-version 3", "needs a model id"},
           {compile + " --model-id 'a b' --model-version 3", "[A-Za-z0-9._-]"},
           {compile + " --model-id t --model-version 1 --not-before 2028-01-01T00:00:00Z"
                      " --not-after 2027-01-01T00:00:00Z",
            "is after not-after"},
           {"verify " + Q(Path("v7.kiln")) + Pub() + " --min-version tiny", "ID=N"},
           {"verify " + Q(Path("v7.kiln")) + Pub() + " --min-version tiny=x", "not a version"},
           {"verify " + Q(Path("v7.kiln")) + Pub() + " --now 2027", "--now"},
           {"verify " + Q(Path("v7.kiln")) + Pub() +
                " --now 2027-01-01T00:00:00Z --ignore-validity",
            "exclude each other"},
       }) {
    SCOPED_TRACE(c.args);
    const CliResult r = Kiln(c.args);
    ASSERT_TRUE(r.exited);
    EXPECT_EQ(r.code, 1) << r.out;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(Path("bad.kiln")));
}

}  // namespace
}  // namespace kiln
