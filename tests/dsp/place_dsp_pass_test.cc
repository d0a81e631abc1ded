// The place-nodes pass for the DSP (--target dsp) through the compiler pipeline: the partition's
// convolution is placed on the DSP, its tiny lookup island on the CPU, and the command streams
// written for the file cover exactly the DSP-placed nodes.
#include <gtest/gtest.h>

#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_op.h"
#include "compiler/pipeline.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

TEST(PlaceDspPass, PlacesByCostAndPlansOnlyDspNodes) {
  const dsptest::PartitionModel m = dsptest::MakePartitionModel();
  CompileOptions options;
  options.target_backend = kExecutorDsp;
  options.backend_options.Mutable<DspOptions>().scratch_bytes = 32 * 1024;
  auto compiled = CompileGraph(*m.graph, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  const Graph& g = compiled->graph;
  std::map<std::string, std::string> placed;
  for (const Node& n : g.nodes()) placed[n.name] = n.placement;
  EXPECT_EQ(placed["conv"], kExecutorDsp);
  EXPECT_EQ(placed["lut"], kExecutorCpu);  // its island does not pay for its hand-offs
  EXPECT_EQ(placed["t1"], kExecutorCpu);
  const PassReport* report = nullptr;
  for (const auto& r : compiled->reports) {
    if (r.name == "place-nodes") report = &r;
  }
  ASSERT_NE(report, nullptr);
  EXPECT_TRUE(report->ran);
  EXPECT_EQ(report->counters.at("dsp"), 1);
  EXPECT_EQ(report->counters.at("dsp-islands"), 1);
  EXPECT_EQ(report->counters.at("dsp-islands-to-cpu"), 1);

  const DspProgramSet programs =
      PlanDspPrograms(g, {}, options.backend_options.Get<DspOptions>().scratch_bytes);
  ASSERT_EQ(programs.by_node.size(), 1u);
  EXPECT_EQ(g.node(programs.by_node.begin()->first).name, "conv");
  EXPECT_EQ(programs.by_node.begin()->second.scratch_bytes, 32u * 1024);

  // Without --target dsp the pass does not run and nothing is placed.
  auto plain = CompileGraph(*m.graph, CompileOptions{});
  ASSERT_TRUE(plain.ok());
  for (const Node& n : plain->graph.nodes()) EXPECT_TRUE(n.placement.empty()) << n.name;
}

// pack-weights for the DSP (DspBackend::PackWeights): the partition's 3x3 convolution (group 1, i8
// weights, zero points 0) gets its weights in the DSP's layout at 256 KiB, and the packed file
// still runs on the CPU reference kernels (which unpack) with the same bytes as the plain graph.
TEST(PackWeightsPass, DspBackendPacksEligibleConvolutionsWhereTheyPay) {
  const dsptest::PartitionModel m = dsptest::MakePartitionModel();
  CompileOptions options;
  options.target_backend = kExecutorDsp;
  options.backend_options.Mutable<DspOptions>().scratch_bytes = 256 * 1024;
  auto compiled = CompileGraph(*m.graph, options);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  const Graph& g = compiled->graph;
  const Node* conv = nullptr;
  for (const Node& n : g.nodes()) {
    if (n.name == "conv") conv = &n;
  }
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(g.value(conv->inputs[1]).layout, Layout::kDspK4);
  const PassReport* report = nullptr;
  for (const auto& r : compiled->reports) {
    if (r.name == "pack-weights") report = &r;
  }
  ASSERT_NE(report, nullptr);
  EXPECT_EQ(report->counters.at("dspk4"), 1);
  auto plain = CompileGraph(*m.graph, CompileOptions{});
  ASSERT_TRUE(plain.ok());
  for (const Node& n : plain->graph.nodes()) {
    if (n.op == OpType::kQConv) {
      EXPECT_EQ(plain->graph.value(n.inputs[1]).layout, Layout::kPlain);
    }
  }
}

}  // namespace
}  // namespace kiln
