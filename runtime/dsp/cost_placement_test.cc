// Cost-aware placement against support-only placement on a partition where they differ: a large
// QConv island is worth the DSP, a tiny QLookup island between two CPU Transposes is not.
#include <gtest/gtest.h>

#include <random>

#include "ir/op_schema.h"
#include "runtime/cost_placement.h"
#include "runtime/dsp/dsp_test_util.h"
#include "runtime/session.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

struct Model {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::vector<HostTensor> feeds;
};

ValueId AddNode(Graph& g, OpType op, const std::string& name, std::vector<ValueId> inputs,
                const QuantParams& out_q, Attributes attrs = {}) {
  Value out;
  out.name = name;
  out.quant = out_q;
  const ValueId id = g.AddValue(out);
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(inputs);
  n.outputs = {id};
  n.attrs = std::move(attrs);
  g.AddNode(std::move(n));
  const Status st = InferNode(g, static_cast<NodeId>(g.num_nodes() - 1));
  EXPECT_TRUE(st.ok()) << st.ToString();
  return id;
}

// x -> QConv 3x3 (32 -> 32 channels, 32x32) -> Transpose -> QLookup -> Transpose -> y
Model Partition() {
  Model m;
  Graph& g = *m.graph;
  std::mt19937 rng(21);
  const ValueId x = AddOperand(g, {RandomCodes(rng, DType::kU8, {1, 32, 32, 32}), Zp(10)}, "x", &m.feeds);
  QuantParams wq;
  wq.scales = {0.01};
  wq.zero_points = {0};
  const ValueId w = AddOperand(g, {RandomCodes(rng, DType::kI8, {32, 32, 3, 3}, -50, 50), wq, true}, "w", &m.feeds);
  const ValueId rq = AddOperand(g, Requants(rng, 1, 40, 41), "rq", &m.feeds);
  Attributes ca;
  ca.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ca.Set("out_dtype", std::string("u8"));
  const ValueId conv = AddNode(g, OpType::kQConv, "conv", {x, w, kNoValue, kNoValue, rq}, Zp(5), ca);
  Attributes perm;
  perm.Set("perm", std::vector<int64_t>{0, 1, 3, 2});
  const ValueId t1 = AddNode(g, OpType::kTranspose, "t1", {conv}, Zp(5), perm);
  const ValueId table = AddOperand(g, {RandomCodes(rng, DType::kU8, {256}), {}, true}, "table", &m.feeds);
  Attributes la;
  la.Set("out_dtype", std::string("u8"));
  const ValueId lut = AddNode(g, OpType::kQLookup, "lut", {t1, table}, Zp(7), la);
  const ValueId t2 = AddNode(g, OpType::kTranspose, "t2", {lut}, Zp(7), perm);
  g.outputs().push_back(t2);
  return m;
}

TEST(CostPlacement, TinyDspIslandStaysOnCpuAndBeatsSupportOnly) {
  const Model m = Partition();
  PlacementCosts costs;
  auto placed = PlaceByCost(*m.graph, {kExecutorDsp, kExecutorCpu}, costs);
  ASSERT_TRUE(placed.ok()) << placed.status().ToString();
  // conv, t1, lut, t2
  EXPECT_EQ(placed->placement, (std::vector<std::string>{"dsp", "cpu", "cpu", "cpu"}));
  ASSERT_EQ(placed->decisions.size(), 2u);
  EXPECT_TRUE(placed->decisions[0].kept) << DescribeDecision(*m.graph, placed->decisions[0]);
  EXPECT_FALSE(placed->decisions[1].kept) << DescribeDecision(*m.graph, placed->decisions[1]);
  EXPECT_NE(DescribeDecision(*m.graph, placed->decisions[1]).find("-> cpu"), std::string::npos);
  // Support-only would put the lookup on the DSP too, and is estimated slower.
  const double support_only =
      EstimatePlacementUs(*m.graph, {"dsp", "cpu", "dsp", "cpu"}, costs);
  EXPECT_DOUBLE_EQ(placed->support_only_us, support_only);
  EXPECT_LT(placed->estimated_us, placed->support_only_us);
  // The Transposes are fallbacks with their reason.
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
    so.dsp.instrument = true;
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
  const Model m = Partition();
  PlacementCosts costs;
  costs.dsp_handoff_us = 0;
  auto placed = PlaceByCost(*m.graph, {kExecutorDsp, kExecutorCpu}, costs);
  ASSERT_TRUE(placed.ok());
  EXPECT_EQ(placed->placement, (std::vector<std::string>{"dsp", "cpu", "dsp", "cpu"}));
  EXPECT_DOUBLE_EQ(placed->estimated_us, placed->support_only_us);
}

}  // namespace
}  // namespace kiln
