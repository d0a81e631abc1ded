// The DSP through the kiln CLI: inspect explains the cost-aware placement of a partition,
// bench --device dsp --profile prints the DSP counters, run --device dsp matches the CPU, and
// bad DSP flags are clear errors (non-zero exit, no crash).
#include <gtest/gtest.h>

#include <filesystem>

#include "runtime/dsp/dsp_test_util.h"
#include "serializer/model_writer.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using testing::RunKiln;

class DspCli : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("kiln_dsp_cli_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    const dsptest::PartitionModel m = dsptest::MakePartitionModel();
    model_ = (dir_ / "partition.kiln").string();
    ASSERT_TRUE(WriteModelFile(*m.graph, WriteOptions{}, model_).ok());
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static testing::CliResult Kiln(const std::string& args) { return RunKiln(args, dir_.string()); }

  static fs::path dir_;
  static std::string model_;
};
fs::path DspCli::dir_;
std::string DspCli::model_;

TEST_F(DspCli, InspectExplainsEveryDecision) {
  const auto r = Kiln("inspect " + model_ + " --allow-unsigned --device dsp,cpu");
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("placement (dsp,cpu, by estimated cost): dsp 1, cpu 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("t1  Transpose  dsp: the DSP target has no Transpose"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dsp island of 1 node (conv)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dsp island of 1 node (lut)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-> cpu"), std::string::npos) << r.out;
  const auto support = Kiln("inspect " + model_ + " --allow-unsigned --device dsp,cpu --placement support");
  ASSERT_EQ(support.code, 0) << support.err;
  EXPECT_NE(support.out.find("by support only): dsp 2, cpu 2"), std::string::npos) << support.out;
}

TEST_F(DspCli, BenchProfilePrintsDspCounters) {
  const auto r = Kiln("bench " + model_ + " --allow-unsigned --device dsp --runs 2 --warmup 0 --profile");
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* want : {"placement: dsp 2, cpu 2", "DSP (cost model:", "est cycles",
                           "DSP per inference: 2 nodes", "DMA minimum", "estimated DSP time"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  const auto j = Kiln("bench " + model_ + " --allow-unsigned --device dsp --runs 1 --warmup 0 --profile --json");
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_NE(j.out.find("\"dsp\": {\"nodes\": 2"), std::string::npos) << j.out;
}

TEST_F(DspCli, BadDspFlagsAreClearErrors) {
  for (const char* args : {"--device dsp --dsp-scratch 1K", "--device dsp --dsp-scratch lots",
                           "--device dsp,cpu --placement fastest", "--device npu"}) {
    const auto r = Kiln("bench " + model_ + " --allow-unsigned --runs 1 " + args);
    ASSERT_TRUE(r.exited) << args;
    EXPECT_NE(r.code, 0) << args;
    EXPECT_NE(r.err.find("kiln bench:"), std::string::npos) << args << ": " << r.err;
  }
}

}  // namespace
}  // namespace kiln
