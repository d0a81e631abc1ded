// The GPU flags of the built `kiln` binary on PoCL (ctest -L opencl): the placement line of run
// and validate, a device preference list, inspect's CPU fallbacks with their reasons, a model
// whose only op has no GPU kernel validating on the CPU fallback, a missing OpenCL platform
// (KILN_OPENCL_PLATFORM) as a warning with the CPU running the model, a bad --device as an
// error, and bench --device gpu --profile with GPU rows timed by event timestamps.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "tests/opencl/opencl_test_util.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using testing::ShellQuote;

class CliGpuTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = (fs::path(::testing::TempDir()) / ("kiln_cli_gpu_" + std::to_string(getpid()))).string();
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  void SetUp() override {
    if (!testing::HaveOpenClDevice()) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)";
  }
  static testing::CliResult Kiln(const std::string& args) { return testing::RunKiln(args, dir_); }
  static std::string Squeezenet(const std::string& rest = "model.onnx") {
    return ShellQuote(testing::SharedDir() + "/models/squeezenet/" + rest);
  }
  static std::string Lrn(const std::string& rest = "model.onnx") {
    return ShellQuote(testing::OnnxNodeTestDir() + "/test_lrn/" + rest);
  }
  static std::string dir_;
};
std::string CliGpuTest::dir_;

TEST_F(CliGpuTest, RunAndValidatePrintThePlacement) {
  auto r = Kiln("validate " + Squeezenet() + " --test-data " + Squeezenet("test_data_set_0") +
                " --device gpu,cpu");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("placement: opencl "), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("cpu "), std::string::npos) << r.out;  // every squeezenet op has a kernel
  r = Kiln("run " + Squeezenet() + " --input data_0=" + Squeezenet("test_data_set_0/input_0.pb") +
           " --device gpu:0");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("placement: opencl "), std::string::npos) << r.out;
}

TEST_F(CliGpuTest, FallbackListedByInspectAndValidatedOnTheCpu) {
  auto r = Kiln("inspect " + Lrn() + " --gpu");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("gpu placement: cpu 1"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("LRN: no OpenCL kernel for LRN"), std::string::npos) << r.out;
  r = Kiln("validate " + Lrn() + " --test-data " + Lrn("test_data_set_0") + " --device gpu");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("placement: cpu 1"), std::string::npos) << r.out;
}

TEST_F(CliGpuTest, MissingPlatformWarnsAndTheCpuRuns) {
  // The child inherits the variable (std::system).
  ASSERT_EQ(setenv("KILN_OPENCL_PLATFORM", "no-such-platform", 1), 0);
  auto r = Kiln("validate " + Squeezenet() + " --test-data " + Squeezenet("test_data_set_0") +
                " --device gpu");
  unsetenv("KILN_OPENCL_PLATFORM");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.err.find("no OpenCL"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no-such-platform"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("placement: cpu "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
}

TEST_F(CliGpuTest, BadDeviceIsAnError) {
  auto r = Kiln("validate " + Squeezenet() + " --test-data " + Squeezenet("test_data_set_0") +
                " --device tpu");
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("tpu"), std::string::npos) << r.err;
}

TEST_F(CliGpuTest, BenchProfilesGpuOpsFromEventTimestamps) {
  auto r = Kiln("bench " + Squeezenet() + " --device gpu --runs 2 --warmup 1 --profile --json");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  for (const char* key : {"\"device\": \"gpu\"", "\"gpu\": ", "\"first_run_ms\"",
                          "\"cold_start_ms\"", "\"executor\": \"opencl\"", "\"by_type\""}) {
    EXPECT_NE(r.out.find(key), std::string::npos) << key << "\n" << r.out;
  }
  EXPECT_EQ(r.out.find("\"executor\": \"cpu\""), std::string::npos) << r.out;
}

}  // namespace
}  // namespace kiln
