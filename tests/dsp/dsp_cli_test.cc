// The DSP through the kiln CLI: inspect explains the cost-aware placement of a partition,
// bench --device dsp --profile prints the DSP counters, run --device dsp matches the CPU, and
// bad DSP flags are clear errors (non-zero exit, no crash).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <span>

#include "backends/dsp/kernels/dsp_op.h"
#include "serializer/model_writer.h"
#include "tests/dsp/dsp_test_util.h"
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
  EXPECT_NE(r.out.find("placement (dsp,cpu, by estimated cost): dsp 1, cpu 3"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("t1  SpaceToDepth  dsp: the DSP target has no SpaceToDepth"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("dsp island of 1 node (conv)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dsp island of 1 node (lut)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-> cpu"), std::string::npos) << r.out;
  const auto support =
      Kiln("inspect " + model_ + " --allow-unsigned --device dsp,cpu --placement support");
  ASSERT_EQ(support.code, 0) << support.err;
  EXPECT_NE(support.out.find("by support only): dsp 2, cpu 2"), std::string::npos) << support.out;
}

TEST_F(DspCli, BenchProfilePrintsDspCounters) {
  const auto r =
      Kiln("bench " + model_ + " --allow-unsigned --device dsp --runs 2 --warmup 0 --profile");
  ASSERT_TRUE(r.exited);
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* want : {"placement: dsp 2, cpu 2", "DSP (cost model:", "est cycles",
                           "DSP per inference: 2 nodes", "DMA minimum", "estimated DSP time"}) {
    EXPECT_NE(r.out.find(want), std::string::npos) << want << "\n" << r.out;
  }
  const auto j = Kiln("bench " + model_ +
                      " --allow-unsigned --device dsp --runs 1 --warmup 0 --profile --json");
  ASSERT_EQ(j.code, 0) << j.err;
  EXPECT_NE(j.out.find("\"dsp\": {\"nodes\": 2"), std::string::npos) << j.out;
}

// x -> QConv 1x1 (8 -> 24) -> QConv 3x3 depthwise (24): a two-node chain.
std::shared_ptr<Graph> ChainGraph(std::vector<HostTensor>* feeds) {
  auto g = std::make_shared<Graph>();
  std::mt19937 rng(5);
  using namespace dsptest;  // NOLINT
  const ValueId x =
      AddOperand(*g, {RandomCodes(rng, DType::kU8, {1, 8, 20, 20}), Zp(12)}, "x", feeds);
  auto conv = [&](const std::string& name, ValueId in, int64_t c, int64_t m, int64_t k,
                  int64_t group) {
    QuantParams wq;
    wq.scales.assign(static_cast<size_t>(m), 0.01);
    wq.zero_points.assign(static_cast<size_t>(m), 0);
    wq.axis = 0;
    const ValueId w =
        AddOperand(*g, {RandomCodes(rng, DType::kI8, {m, c / group, k, k}, -60, 60), wq, true},
                   name + ".w", feeds);
    const ValueId rq = AddOperand(*g, Requants(rng, m, 36, 40), name + ".rq", feeds);
    Attributes a;
    a.Set("group", group);
    a.Set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
    a.Set("out_dtype", std::string("u8"));
    return AddNode(*g, OpType::kQConv, name, {in, w, kNoValue, kNoValue, rq}, Zp(20), a);
  };
  const ValueId e = conv("expand", x, 8, 24, 1, 1);
  g->outputs().push_back(conv("dw", e, 24, 24, 3, 24));
  return g;
}

TEST_F(DspCli, FusedChainsAreExplainedProfiledAndCanBeTurnedOff) {
  std::vector<HostTensor> feeds;
  auto g = ChainGraph(&feeds);
  DspProgramSet programs =
      PlanDspPrograms(*g, {}, 64 * 1024, [](std::span<const int32_t>) { return true; });
  ASSERT_EQ(programs.chains.size(), 1u);
  const std::string file = (dir_ / "chain.kiln").string();
  WriteOptions wo;
  wo.dsp_programs = &programs;
  ASSERT_TRUE(WriteModelFile(*g, wo, file).ok());
  const auto inspect = Kiln("inspect " + file + " --allow-unsigned --device dsp,cpu");
  ASSERT_EQ(inspect.code, 0) << inspect.err;
  EXPECT_NE(inspect.out.find("dsp fused chains"), std::string::npos) << inspect.out;
  EXPECT_NE(inspect.out.find("expand -> dw: "), std::string::npos) << inspect.out;
  const auto fused =
      Kiln("bench " + file + " --allow-unsigned --device dsp --runs 1 --warmup 0 --profile");
  ASSERT_EQ(fused.code, 0) << fused.err;
  EXPECT_NE(fused.out.find("chain of 2"), std::string::npos) << fused.out;
  EXPECT_NE(fused.out.find("fused chains: 1 (2 nodes"), std::string::npos) << fused.out;
  const auto unfused =
      Kiln("bench " + file +
           " --allow-unsigned --device dsp --dsp-unfused --runs 1 --warmup 0 --profile");
  ASSERT_EQ(unfused.code, 0) << unfused.err;
  EXPECT_NE(unfused.out.find("fused chains: 0 (0 nodes"), std::string::npos) << unfused.out;
  EXPECT_EQ(unfused.out.find("chain of 2"), std::string::npos) << unfused.out;
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
