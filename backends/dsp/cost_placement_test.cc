// Cost-aware placement against support-only placement on a partition where they differ: a large
// QConv island is worth the DSP, a tiny QLookup island between a CPU SpaceToDepth and DepthToSpace
// is not.
#include "backends/cost_placement.h"

#include <gtest/gtest.h>

#include <random>

#include "backends/dsp/dsp_options.h"
#include "runtime/session.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

TEST(CostPlacement, TinyDspIslandStaysOnCpuAndBeatsSupportOnly) {
  const PartitionModel m = MakePartitionModel();
  BackendOptions options;
  auto placed = PlaceByCost(*m.graph, {kExecutorDsp, kExecutorCpu}, options);
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  // conv, t1, lut, t2
  EXPECT_EQ(placed->placement, (std::vector<std::string>{"dsp", "cpu", "cpu", "cpu"}));
  ASSERT_EQ(placed->decisions.size(), 2u);
  EXPECT_TRUE(placed->decisions[0].kept) << DescribeDecision(*m.graph, placed->decisions[0]);
  EXPECT_FALSE(placed->decisions[1].kept) << DescribeDecision(*m.graph, placed->decisions[1]);
  EXPECT_NE(DescribeDecision(*m.graph, placed->decisions[1]).find("-> cpu"), std::string::npos);
  // Support-only would put the lookup on the DSP too, and is estimated slower.
  const double support_only = EstimatePlacementUs(*m.graph, {"dsp", "cpu", "dsp", "cpu"}, options);
  EXPECT_DOUBLE_EQ(placed->support_only_us, support_only);
  EXPECT_LT(placed->estimated_us, placed->support_only_us);
  // SpaceToDepth and DepthToSpace are fallbacks with their reason.
  ASSERT_FALSE(placed->fallbacks.empty());
  EXPECT_EQ(m.graph->node(placed->fallbacks[0].node).name, "t1");

  // Sessions honour both placements and agree with the CPU reference bit for bit.
  SessionOptions ref;
  auto want = Session::Create(m.graph, ref);
  ASSERT_TRUE(want.ok());
  auto want_out = (*want)->Run(m.feeds);
  ASSERT_TRUE(want_out.ok());
  for (bool cost : {false, true}) {
    SessionOptions so;
    so.executors = {kExecutorDsp, kExecutorCpu};
    so.cost_placement = cost;
    so.backend_options.Mutable<DspOptions>().instrument = true;
    auto s = Session::Create(m.graph, so);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    EXPECT_EQ((*s)->Placement(), (cost ? std::vector<std::string>{"dsp", "cpu", "cpu", "cpu"}
                                       : std::vector<std::string>{"dsp", "cpu", "dsp", "cpu"}));
    EXPECT_EQ((*s)->cost_placement() != nullptr, cost);
    auto out = (*s)->Run(m.feeds);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_EQ((*out)[0].bytes, (*want_out)[0].bytes);
  }
}

// With a cheap hand-off the same lookup island is worth the DSP: the decision follows the costs.
TEST(CostPlacement, DecisionFollowsTheCostModel) {
  const PartitionModel m = MakePartitionModel();
  BackendOptions options;
  options.Mutable<DspOptions>().handoff_us = 0;
  auto placed = PlaceByCost(*m.graph, {kExecutorDsp, kExecutorCpu}, options);
  ASSERT_TRUE(placed.ok());
  EXPECT_EQ(placed->placement, (std::vector<std::string>{"dsp", "cpu", "dsp", "cpu"}));
  EXPECT_DOUBLE_EQ(placed->estimated_us, placed->support_only_us);
}

}  // namespace
}  // namespace kiln
