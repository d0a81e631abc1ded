// The blocked-layout pass through the whole pipeline: a chain of mobilenet-like layers is
// stored NCHW8c from the stem on with one Reorder at the graph's output, and computes what
// the plain compile does; a squeeze-excite block and a pooled squeezenet fire module (its
// Concat written in place) need no Reorder inside; a lone layer, which would need more
// Reorders than it has convolutions to pay for them, stays plain; targets without AVX2 skip
// the pass.
#include <gtest/gtest.h>

#include <algorithm>

#include "compiler/pipeline.h"
#include "kernels/cpu_features.h"
#include "runtime/session.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

Attributes Conv(int64_t group, int64_t stride, int64_t pad, const std::string& act) {
  Attributes a = Attrs({{"group", group},
                        {"strides", std::vector<int64_t>{stride, stride}},
                        {"pads", std::vector<int64_t>{pad, pad, pad, pad}}});
  if (act == "clip") {
    a.Set("activation", act);
    a.Set("activation_alpha", 0.f);
    a.Set("activation_beta", 6.f);
  }
  return a;
}

// stem 3 -> 16 (stride 2), depthwise, 1x1 16 -> 8, 1x1 8 -> 48, depthwise stride 2, 1x1
// 48 -> 8 plus a residual from a 1x1 8 -> 8 branch.
Graph MobileChain() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 3, 34, 34});
  auto conv = [&](const std::string& name, ValueId in, int64_t m, int64_t k, int64_t group,
                  int64_t stride, const std::string& act, ValueId residual = kNoValue) {
    const int64_t c = b.graph().value(in).shape[1];
    std::vector<ValueId> ins = {in, b.Const(name + "_w", {m, c / group, k, k}),
                                b.Const(name + "_b", {m})};
    if (residual != kNoValue) ins.push_back(residual);
    return b.Op(OpType::kFusedConv, name, ins, Conv(group, stride, k / 2, act));
  };
  ValueId y = conv("stem", x, 16, 3, 1, 2, "clip");
  y = conv("dw1", y, 16, 3, 16, 1, "clip");
  y = conv("pw1", y, 8, 1, 1, 1, "none");
  y = conv("pw2", y, 48, 1, 1, 1, "clip");
  y = conv("dw2", y, 48, 3, 48, 2, "clip");
  const ValueId shortcut = conv("pw3", y, 8, 1, 1, 1, "none");
  y = conv("pw4", y, 8, 1, 1, 1, "none", shortcut);
  b.Output(y);
  return b.Take();
}

// A max pool, a squeezenet fire module (squeeze 1x1, then a 1x1 and a 3x3 expansion
// concatenated) and the next module's squeeze.
Graph Fire() {
  GraphBuilder b;
  ValueId x = b.Input("x", {1, 32, 20, 20});
  x = b.Op(OpType::kMaxPool, "pool", {x},
           Attrs({{"kernel_shape", std::vector<int64_t>{3, 3}},
                  {"strides", std::vector<int64_t>{1, 1}},
                  {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  ValueId s = b.Op(OpType::kFusedConv, "squeeze",
                   {x, b.Const("sw", {16, 32, 1, 1}), b.Const("sb", {16})}, Conv(1, 1, 0, "none"));
  ValueId e1 =
      b.Op(OpType::kFusedConv, "e1", {s, b.Const("e1w", {32, 16, 1, 1}), b.Const("e1b", {32})},
           Conv(1, 1, 0, "none"));
  ValueId e3 =
      b.Op(OpType::kFusedConv, "e3", {s, b.Const("e3w", {32, 16, 3, 3}), b.Const("e3b", {32})},
           Conv(1, 1, 1, "none"));
  const ValueId y = b.Op(OpType::kConcat, "y", {e1, e3}, Attrs({{"axis", int64_t{1}}}));
  b.Output(b.Op(OpType::kFusedConv, "next", {y, b.Const("nw", {16, 64, 1, 1}), b.Const("nb", {16})},
                Conv(1, 1, 0, "none")));
  return b.Take();
}

CompiledModel Compile(const Graph& g, Isa target, bool blocked) {
  CompileOptions options;
  options.target_isa = target;
  options.verify_each_pass = true;
  if (!blocked) options.disabled_passes.insert("blocked-layout");
  auto compiled = CompileGraph(g, options);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  return std::move(compiled).value();
}

std::map<std::string, int64_t> Counters(const CompiledModel& m) {
  for (const PassReport& r : m.reports) {
    if (r.name == "blocked-layout") return r.counters;
  }
  return {};
}

std::vector<HostTensor> RunCompiled(const CompiledModel& m, const std::vector<HostTensor>& inputs,
                                    Isa isa, int threads) {
  SessionOptions so;
  so.cpu_max_isa = isa;
  so.num_threads = threads;
  auto session = Session::Create(std::make_shared<const Graph>(m.graph), so,
                                 std::make_shared<const ExecutionPlan>(m.plan));
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  auto out = (*session)->Run(inputs);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<HostTensor>{};
}

class BlockedLayoutTargetTest : public ::testing::TestWithParam<Isa> {};

TEST_P(BlockedLayoutTargetTest, MobileChainIsBlockedFromTheStemOn) {
  const Graph g = MobileChain();
  const CompiledModel blocked = Compile(g, GetParam(), true);
  const CompiledModel plain = Compile(g, GetParam(), false);
  const auto counters = Counters(blocked);
  EXPECT_EQ(counters.at("nchw8c convolutions"), 7);
  EXPECT_EQ(counters.at("reorders to plain"), 1);       // the graph's output
  EXPECT_EQ(counters.count("reorders to nchw8c"), 0u);  // the stem reads x plain
  int reorders = 0;
  for (const Node& n : blocked.graph.nodes()) {
    if (n.op == OpType::kReorder) ++reorders;
    if (n.op == OpType::kFusedConv) {
      EXPECT_EQ(blocked.graph.value(n.outputs[0]).layout, Layout::kNCHW8c) << n.name;
    }
  }
  EXPECT_EQ(reorders, 1);
  // The graph's output keeps its name and stays plain.
  const Value& out = blocked.graph.value(blocked.graph.outputs()[0]);
  EXPECT_EQ(out.name, g.value(g.outputs()[0]).name);
  EXPECT_EQ(out.layout, Layout::kPlain);

  const auto inputs = testing::RandomInputs(g, 3);
  const auto expected = testing::RunGraph(g, inputs);
  for (Isa isa : {Isa::kReference, Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    for (int threads : {1, 2}) {
      testing::ExpectClose(expected, RunCompiled(blocked, inputs, isa, threads), 1e-5f);
      testing::ExpectClose(expected, RunCompiled(plain, inputs, isa, threads), 1e-5f);
      if (::testing::Test::HasFailure()) FAIL() << cpu::IsaName(isa) << " threads " << threads;
    }
  }
}

// An efficientnet block: 1x1 expansion (SiLU), depthwise 5x5 (SiLU), squeeze-excite (pool, two
// 1x1 layers on the means, Mul), 1x1 projection with the residual.
Graph SqueezeExciteBlock() {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 16, 14, 14});
  auto conv = [&](const std::string& name, ValueId in, int64_t m, int64_t k, int64_t group,
                  const std::string& act, ValueId residual = kNoValue) {
    const int64_t c = b.graph().value(in).shape[1];
    std::vector<ValueId> ins = {in, b.Const(name + "_w", {m, c / group, k, k}),
                                b.Const(name + "_b", {m})};
    if (residual != kNoValue) ins.push_back(residual);
    Attributes a = Conv(group, 1, k / 2, "none");
    if (act != "none") a.Set("activation", act);
    return b.Op(OpType::kFusedConv, name, ins, a);
  };
  const ValueId e = conv("expand", x, 64, 1, 1, "silu");
  const ValueId d = conv("dw", e, 64, 5, 64, "silu");
  const ValueId pooled = b.Op(OpType::kGlobalAveragePool, "pool", {d});
  const ValueId f1 = conv("fc1", pooled, 8, 1, 1, "silu");
  const ValueId f2 = conv("fc2", f1, 64, 1, 1, "sigmoid");
  const ValueId scaled = b.Op(OpType::kMul, "scale", {f2, d});
  b.Output(conv("project", scaled, 16, 1, 1, "none", x));
  return b.Take();
}

// The compiled `blocked` graph computes what `g` does at every flavour, one and two threads.
void ExpectSameOutputsAtEveryIsa(const Graph& g, const CompiledModel& blocked, uint32_t seed) {
  const auto inputs = testing::RandomInputs(g, seed);
  const auto expected = testing::RunGraph(g, inputs);
  for (Isa isa : {Isa::kReference, Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    for (int threads : {1, 2}) {
      testing::ExpectClose(expected, RunCompiled(blocked, inputs, isa, threads), 1e-5f);
      if (::testing::Test::HasFailure()) FAIL() << cpu::IsaName(isa) << " threads " << threads;
    }
  }
}

TEST_P(BlockedLayoutTargetTest, SqueezeExciteBlockNeedsNoReorderInside) {
  const Graph g = SqueezeExciteBlock();
  const CompiledModel blocked = Compile(g, GetParam(), true);
  const auto counters = Counters(blocked);
  // expand, dw, fc1, fc2, project; the Mul; the pool reads the depthwise output as it is, and
  // the means ([1, 64, 1, 1]) have the same bytes in both layouts. The input x (read by the
  // expansion and as the residual) and the output need one Reorder each.
  EXPECT_EQ(counters.at("nchw8c convolutions"), 5);
  EXPECT_EQ(counters.at("nchw8c other"), 1);
  EXPECT_EQ(counters.at("reorders to nchw8c"), 1);
  EXPECT_EQ(counters.at("reorders to plain"), 1);
  ExpectSameOutputsAtEveryIsa(g, blocked, 4);
}

TEST_P(BlockedLayoutTargetTest, FireModulesAreBlockedWholeWithTheirConcatInPlace) {
  // The pool, squeeze, both expansions (the 3x3 one direct: Winograd would gain less than its
  // two Reorders cost), the Concat (written in place) and the next squeeze: one Reorder in
  // and one out.
  const Graph g = Fire();
  const CompiledModel blocked = Compile(g, GetParam(), true);
  const auto counters = Counters(blocked);
  EXPECT_EQ(counters.at("nchw8c convolutions"), 4);
  EXPECT_EQ(counters.at("nchw8c other"), 2);
  EXPECT_EQ(counters.at("reorders to nchw8c"), 1);
  EXPECT_EQ(counters.at("reorders to plain"), 1);
  NodeId concat = kNoNode;
  for (NodeId id = 0; id < static_cast<NodeId>(blocked.graph.num_nodes()); ++id) {
    if (blocked.graph.node(id).op == OpType::kConcat) concat = id;
  }
  ASSERT_NE(concat, kNoNode);
  EXPECT_EQ(blocked.graph.value(blocked.graph.node(concat).outputs[0]).layout, Layout::kNCHW8c);
  const auto& elided = blocked.plan.memory.elided;
  EXPECT_NE(std::find(elided.begin(), elided.end(), concat), elided.end());
  ExpectSameOutputsAtEveryIsa(g, blocked, 5);
}

// The files are compiled for a target ISA (the pass reads only it: this machine's CPU may be
// any of them).
INSTANTIATE_TEST_SUITE_P(Targets, BlockedLayoutTargetTest,
                         ::testing::Values(Isa::kAvx2, Isa::kAvx512, Isa::kAvx512Vnni),
                         [](const ::testing::TestParamInfo<Isa>& info) {
                           return std::string(cpu::IsaName(info.param));
                         });

TEST(BlockedLayoutPassTest, RegionsThatNeedMoreReordersThanTheyPayForStayPlain) {
  GraphBuilder b;  // one 1x1 layer alone
  const ValueId x = b.Input("x", {1, 16, 20, 20});
  b.Output(b.Op(OpType::kFusedConv, "y", {x, b.Const("w", {16, 16, 1, 1}), b.Const("b", {16})},
                Conv(1, 1, 0, "none")));
  EXPECT_TRUE(Counters(Compile(b.Take(), Isa::kAvx2, true)).empty());
}

TEST(BlockedLayoutPassTest, WeightsF16KeepTheConvolutionsPlain) {
  // The NCHW8c kernels read f32 weights, and the pass runs before weights-f16 converts them:
  // with --weights-f16 no convolution is blocked, and the file still runs.
  const Graph g = MobileChain();
  CompileOptions options;
  options.target_isa = Isa::kAvx512;
  options.weights_f16 = true;
  options.verify_each_pass = true;
  auto m = CompileGraph(g, options);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  for (const Node& n : m->graph.nodes()) {
    if (n.op == OpType::kFusedConv) {
      EXPECT_EQ(m->graph.value(n.outputs[0]).layout, Layout::kPlain) << n.name;
    }
  }
  const auto inputs = testing::RandomInputs(g, 6);
  const auto expected = testing::RunGraph(g, inputs);
  testing::ExpectClose(expected, RunCompiled(*m, inputs, Isa::kAvx2, 1), 1e-2f);
}

TEST(BlockedLayoutPassTest, TargetsWithoutAvx2SkipThePass) {
  // No SIMD kernel runs the layout there: the portable blocked kernels are slower than plain.
  for (Isa target : {Isa::kReference, Isa::kScalar}) {
    const CompiledModel m = Compile(MobileChain(), target, true);
    for (const Value& v : m.graph.values()) EXPECT_EQ(v.layout == Layout::kNCHW8c, false);
  }
}

}  // namespace
}  // namespace kiln
