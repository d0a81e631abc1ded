// `kiln compile` and `kiln inspect` on a real model through the built binary: the pass table,
// bisecting flags and their errors, the IR after a pass, and the compiler's fields in inspect.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;

class CliCompileTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (fs::path(::testing::TempDir()) / ("kiln_cli_compile_" + std::to_string(getpid())))
               .string();
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  static testing::CliResult Kiln(const std::string& args) { return testing::RunKiln(args, dir_); }
  static std::string Model() {
    return testing::ShellQuote(testing::SharedDir() + "/models/squeezenet/model.onnx");
  }
  static std::string Out() { return testing::ShellQuote(dir_ + "/out.kiln"); }
  static std::string dir_;
};
std::string CliCompileTest::dir_;

TEST_F(CliCompileTest, VerbosePrintsEveryPassAndStage) {
  auto r = Kiln("compile " + Model() + " -o " + Out() + " -v --streams 2");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* row : {"fold-constants", "fuse-activation", "fuse-residual", "dead-code",
                          "pack-weights", "streams", "memory-plan", "total"}) {
    EXPECT_NE(r.out.find(row), std::string::npos) << row << "\n" << r.out;
  }
  EXPECT_NE(r.out.find("relu 26"), std::string::npos) << r.out;  // every Conv's Relu fused
  EXPECT_NE(r.out.find("from 66 ONNX nodes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 stream(s)"), std::string::npos) << r.out;
}

TEST_F(CliCompileTest, BisectingFlagsAndTheirErrors) {
  auto r = Kiln("compile " + Model() + " -o " + Out() + " -v --disable-pass fuse-activation");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("skipped (disabled)"), std::string::npos) << r.out;
  r = Kiln("compile " + Model() + " -o " + Out() + " --disable-pass fuse-everything");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("no such pass"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("fuse-residual"), std::string::npos) << r.err;  // lists the real ones
  r = Kiln("compile " + Model() + " -o " + Out() + " --opt-level 7");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--opt-level must be 0..3"), std::string::npos) << r.err;
  r = Kiln("compile " + Model() + " -o " + Out() + " --streams 0");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--streams"), std::string::npos) << r.err;
  r = Kiln("compile " + Model() + " -o " + Out() + " --target gpu9");
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("--target"), std::string::npos) << r.err;
  r = Kiln("compile " + Model() + " -o " + Out() + " --print-ir-after fuse-activation");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("// IR after fuse-activation"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("FusedConv("), std::string::npos);
}

TEST_F(CliCompileTest, InspectReportsNodesMemoryStreamsAndProvenance) {
  ASSERT_EQ(Kiln("compile " + Model() + " -o " + Out() + " --streams 2").code, 0);
  auto r = Kiln("inspect " + Out() + " --allow-unsigned --json --nodes");
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* field : {"\"onnx_nodes\": 66", "\"arena_bytes\": ", "\"lower_bound_bytes\": ",
                            "\"no_reuse_bytes\": ", "\"inplace_ops\": ", "\"streams\": {\"count\": 2",
                            "\"events\": ",
                            "\"sources\": [\"Conv_3\", \"Relu_4\"]"}) {
    EXPECT_NE(r.out.find(field), std::string::npos) << field << "\n" << r.out.substr(0, 2000);
  }
  r = Kiln("inspect " + Model() + " --nodes");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("memory: arena "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Conv_0  FusedConv  s0  <- Conv_0, Relu_1"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kiln
