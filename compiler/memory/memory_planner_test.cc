// Memory planner and plan validator: property tests on random DAGs with random streams
// (every plan validates, and runs bit-identically to one buffer per value, streams running
// concurrently), soundness of the validator under random perturbations, and hand-made
// unsafe plans it must refuse.
#include "compiler/memory/memory_planner.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/streams/stream_splitter.h"
#include "ir/plan_rules.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

// A random DAG over [1, C, S, S] tensors: unary (in-place candidates), Add (in place), 1x1
// FusedConv (channel change, optional residual), Concat on channels (slices), Reshape (view).
Graph RandomDag(std::mt19937& rng, int nodes) {
  GraphBuilder b;
  const int64_t s = 1 + static_cast<int64_t>(rng() % 3);
  std::vector<ValueId> vals = {b.Input("in", {1, 1 + static_cast<int64_t>(rng() % 3), s, s})};
  if (rng() % 2) vals.push_back(b.Input("in2", {1, 2, s, s}));
  auto channels = [&](ValueId v) { return b.graph().value(v).shape[1]; };
  auto pick = [&] {  // biased to recent values, as real graphs are
    const size_t n = vals.size();
    const size_t back = std::min<size_t>(n - 1, rng() % 4 == 0 ? rng() % n : rng() % 3);
    return vals[n - 1 - back];
  };
  for (int i = 0; i < nodes; ++i) {
    const std::string name = "n" + std::to_string(i);
    const ValueId a = pick();
    switch (rng() % 6) {
      case 0:
        vals.push_back(b.Op(rng() % 2 ? OpType::kRelu : OpType::kSigmoid, name, {a}));
        break;
      case 1: {
        ValueId other = pick();
        if (channels(other) != channels(a)) other = a;
        vals.push_back(b.Op(OpType::kAdd, name, {a, other}));
        break;
      }
      case 2: {
        const int64_t out = 1 + static_cast<int64_t>(rng() % 4);
        std::vector<ValueId> ins = {a, b.Const(name + ".w", {out, channels(a), 1, 1})};
        // A residual of the output's shape, when one exists: often the conv's own input (which
        // must then never be overwritten in place), else an earlier value.
        if (channels(a) == out && rng() % 2 == 0) {
          ins.push_back(kNoValue);
          ins.push_back(a);
        } else {
          for (ValueId r : vals) {
            if (rng() % 3 == 0 && channels(r) == out) {
              ins.push_back(kNoValue);
              ins.push_back(r);
              break;
            }
          }
        }
        vals.push_back(b.Op(OpType::kFusedConv, name, ins));
        break;
      }
      case 3: {
        std::vector<ValueId> ins = {a};
        const int k = 1 + static_cast<int>(rng() % 3);
        for (int j = 0; j < k; ++j) {
          const ValueId c = pick();
          if (std::find(ins.begin(), ins.end(), c) == ins.end()) ins.push_back(c);
        }
        vals.push_back(b.Op(OpType::kConcat, name, ins, Attrs({{"axis", int64_t{1}}})));
        break;
      }
      case 4: {
        const Shape& sh = b.graph().value(a).shape;
        vals.push_back(b.Op(OpType::kReshape, name,
                            {a, b.ConstI64(name + ".shape", {4}, {sh[0], sh[1], sh[3], sh[2]})}));
        break;
      }
      default:
        vals.push_back(b.Op(OpType::kMul, name, {a, a}));
        break;
    }
  }
  b.Output(vals.back());
  if (rng() % 2 && vals.size() > 3) b.Output(vals[vals.size() / 2]);
  return b.Take();
}

Schedule RandomSchedule(std::mt19937& rng, const Graph& g) {
  const int32_t streams = 1 + static_cast<int32_t>(rng() % 4);
  if (rng() % 2) {
    auto s = SplitStreams(g, streams);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return *s;
  }
  Schedule s;
  s.num_streams = streams;
  for (size_t n = 0; n < g.num_nodes(); ++n)
    s.stream.push_back(static_cast<int32_t>(rng() % streams));
  s.events = MinimalEvents(g, s.stream, streams, nullptr);
  return s;
}

TEST(MemoryPlannerProperty, ThousandRandomDagsWithStreamsValidateAndRunBitIdentical) {
  std::mt19937 rng(2024);
  int aliased = 0, multi_stream = 0;
  for (int t = 0; t < 1000; ++t) {
    Graph g = RandomDag(rng, 3 + static_cast<int>(rng() % 30));
    ExecutionPlan plan;
    plan.schedule = RandomSchedule(rng, g);
    MemoryPlanStats stats;
    auto memory = PlanMemory(g, plan.schedule, {}, &stats);
    ASSERT_TRUE(memory.ok()) << memory.status().ToString();
    plan.memory = std::move(memory).value();
    Status valid = ValidateExecutionPlan(g, plan);
    ASSERT_TRUE(valid.ok()) << "graph " << t << ": " << valid.ToString();
    EXPECT_LE(stats.arena_bytes, stats.no_reuse_bytes);
    aliased += stats.inplace_ops + stats.elided_concats + stats.elided_views > 0;
    multi_stream += plan.schedule.num_streams > 1 && !plan.schedule.events.empty();
    if (t % 5 == 0) {  // numerics on a fifth of them (each run is a session)
      const auto inputs = testing::RandomInputs(g, static_cast<uint32_t>(t));
      const auto expected = testing::RunGraph(g, inputs);
      const auto actual = testing::RunGraph(g, inputs, std::make_shared<ExecutionPlan>(plan),
                                            plan.schedule.num_streams);
      testing::ExpectClose(expected, actual, 0.f);
      if (::testing::Test::HasFailure()) FAIL() << "graph " << t;
    }
  }
  // The generator exercises what it is meant to.
  EXPECT_GT(aliased, 500);
  EXPECT_GT(multi_stream, 200);
}

// Soundness: a plan perturbed at random is either refused, or still computes the right
// answer.
TEST(MemoryPlannerProperty, PerturbedPlansAreRefusedOrStillCorrect) {
  std::mt19937 rng(77);
  int refused = 0, accepted = 0;
  for (int t = 0; t < 300; ++t) {
    Graph g = RandomDag(rng, 4 + static_cast<int>(rng() % 16));
    ExecutionPlan plan;
    plan.schedule = RandomSchedule(rng, g);
    auto memory = PlanMemory(g, plan.schedule, {});
    ASSERT_TRUE(memory.ok());
    plan.memory = *memory;
    std::vector<size_t> planned;
    for (size_t v = 0; v < g.num_values(); ++v) {
      if (plan.memory.offsets[v] >= 0 && plan.memory.inplace_of[v] == kNoValue)
        planned.push_back(v);
    }
    if (planned.empty()) continue;
    ExecutionPlan bad = plan;
    switch (rng() % 3) {
      case 0: {  // move a buffer
        const size_t v = planned[rng() % planned.size()];
        bad.memory.offsets[v] =
            static_cast<int64_t>(rng() % (plan.memory.arena_bytes / 64 + 1)) * 64;
        break;
      }
      case 1:  // drop an event
        if (bad.schedule.events.empty()) continue;
        bad.schedule.events.erase(bad.schedule.events.begin() +
                                  static_cast<long>(rng() % bad.schedule.events.size()));
        break;
      default: {  // move a node to another stream without new events
        if (bad.schedule.num_streams < 2) continue;
        const size_t n = rng() % g.num_nodes();
        bad.schedule.stream[n] = (bad.schedule.stream[n] + 1) % bad.schedule.num_streams;
        break;
      }
    }
    if (!ValidateExecutionPlan(g, bad).ok()) {
      ++refused;
      continue;
    }
    ++accepted;
    const auto inputs = testing::RandomInputs(g, static_cast<uint32_t>(t));
    testing::ExpectClose(testing::RunGraph(g, inputs),
                         testing::RunGraph(g, inputs, std::make_shared<ExecutionPlan>(bad),
                                           bad.schedule.num_streams),
                         0.f);
    if (::testing::Test::HasFailure()) FAIL() << "graph " << t << " accepted an unsafe plan";
  }
  EXPECT_GT(refused, 50);
  EXPECT_GT(accepted, 20);
}

// a -> relu r1 -> relu r2 -> out, plus a -> sigmoid s -> out2: three buffers live at once at
// most.
Graph Diamond() {
  GraphBuilder b;
  auto x = b.Input("x", {1, 4, 2, 2});
  auto a = b.Op(OpType::kMul, "a", {x, x});
  auto r1 = b.Op(OpType::kRelu, "r1", {a});
  auto s = b.Op(OpType::kSigmoid, "s", {a});
  auto r2 = b.Op(OpType::kAdd, "r2", {r1, s});
  b.Output(b.Op(OpType::kTanh, "out", {r2}));
  return b.Take();
}

TEST(PlanValidatorTest, RefusesOverlapOfLiveValues) {
  Graph g = Diamond();
  ExecutionPlan plan = ExecutionPlan::Default(g);
  ASSERT_TRUE(ValidateExecutionPlan(g, plan).ok());
  // r1 and s are both live when r2 runs: sharing bytes is unsafe.
  plan.memory.offsets[static_cast<size_t>(*g.FindValue("s"))] =
      plan.memory.offsets[static_cast<size_t>(*g.FindValue("r1"))];
  Status st = ValidateExecutionPlan(g, plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("may be live at the same time"), std::string::npos) << st.message();
}

TEST(PlanValidatorTest, RefusesInPlaceOverAValueStillRead) {
  Graph g = Diamond();
  ExecutionPlan plan = ExecutionPlan::Default(g);
  // r1 = relu(a) in place over a, but s = sigmoid(a) runs after r1 in graph order.
  const auto a = *g.FindValue("a"), r1 = *g.FindValue("r1");
  plan.memory.inplace_of[static_cast<size_t>(r1)] = a;
  plan.memory.offsets[static_cast<size_t>(r1)] = plan.memory.offsets[static_cast<size_t>(a)];
  Status st = ValidateExecutionPlan(g, plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("may still read it"), std::string::npos) << st.message();
}

TEST(PlanValidatorTest, RefusesMissingAndBackwardEventsAndBogusElision) {
  Graph g = Diamond();
  ExecutionPlan plan = ExecutionPlan::Default(g);
  plan.schedule.num_streams = 2;
  plan.schedule.stream = {0, 0, 1, 0, 0};  // s on stream 1 with no event: races with a
  Status st = ValidateExecutionPlan(g, plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("before"), std::string::npos) << st.message();
  plan.schedule.events = MinimalEvents(g, plan.schedule.stream, 2, nullptr);
  EXPECT_TRUE(ValidateExecutionPlan(g, plan).ok());
  plan.schedule.events.push_back({4, 1});
  st = ValidateExecutionPlan(g, plan);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("backwards"), std::string::npos) << st.message();

  ExecutionPlan elide = ExecutionPlan::Default(g);
  elide.memory.elided.push_back(1);  // relu is no view or Concat
  EXPECT_FALSE(ValidateExecutionPlan(g, elide).ok());
}

TEST(MemoryPlannerTest, ChainReusesTwoBuffersOrOneInPlace) {
  GraphBuilder b;
  ValueId v = b.Input("x", {1, 16, 4, 4});
  for (int i = 0; i < 8; ++i) v = b.Op(OpType::kSigmoid, "n" + std::to_string(i), {v});
  b.Output(b.Op(OpType::kTanh, "out", {v}));
  Graph g = b.Take();
  const uint64_t tensor = 16 * 16 * 4;
  MemoryPlannerOptions no_alias{false, false, false, {}};
  MemoryPlanStats stats;
  auto plan = PlanMemory(g, Schedule::Sequential(g), no_alias, &stats);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(stats.arena_bytes, 2 * tensor);  // ping-pong between two buffers
  EXPECT_EQ(stats.lower_bound_bytes, 2 * tensor);
  EXPECT_EQ(stats.no_reuse_bytes, 8 * tensor);
  // In place, n1..n7 overwrite their input (n0 reads the graph input, which stays).
  ASSERT_TRUE(PlanMemory(g, Schedule::Sequential(g), {}, &stats).ok());
  EXPECT_EQ(stats.arena_bytes, tensor);
  EXPECT_EQ(stats.inplace_ops, 7);
}

TEST(MemoryPlannerTest, ResidualThatIsAlsoTheConvInputIsNotOverwritten) {
  // y = relu(conv(a) + a): the residual is the convolution's own input, whose window the
  // convolution still reads while it writes y -- y must not take a's buffer.
  GraphBuilder b;
  auto x = b.Input("x", {1, 4, 5, 5});
  auto a = b.Op(OpType::kSigmoid, "a", {x});
  auto y = b.Op(
      OpType::kFusedConv, "y", {a, b.Const("w", {4, 4, 3, 3}), kNoValue, a},
      Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"activation", std::string("relu")}}));
  b.Output(b.Op(OpType::kTanh, "t", {y}));
  Graph g = b.Take();
  auto plan = PlanMemory(g, Schedule::Sequential(g), {});
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->inplace_of[static_cast<size_t>(y)], kNoValue);
  ExecutionPlan full{Schedule::Sequential(g), *plan};
  const auto inputs = testing::RandomInputs(g);
  testing::ExpectClose(testing::RunGraph(g, inputs),
                       testing::RunGraph(g, inputs, std::make_shared<ExecutionPlan>(full)), 0.f);
  // A plan that aliases them anyway is refused.
  ExecutionPlan bad = ExecutionPlan::Default(g);
  bad.memory.inplace_of[static_cast<size_t>(y)] = a;
  bad.memory.offsets[static_cast<size_t>(y)] = bad.memory.offsets[static_cast<size_t>(a)];
  EXPECT_FALSE(ValidateExecutionPlan(g, bad).ok());
}

TEST(MemoryPlannerTest, ConcurrentStreamsDoNotShareBytes) {
  // a -> (p1 -> p2) and (q1 -> q2) -> out. In one stream q1 can reuse p1's bytes; with the
  // branches on two streams they may run at the same time, so they cannot.
  GraphBuilder b;
  auto x = b.Input("x", {1, 8, 4, 4});
  auto a = b.Op(OpType::kMul, "a", {x, x});
  auto p2 = b.Op(OpType::kSigmoid, "p2", {b.Op(OpType::kSigmoid, "p1", {a})});
  auto q2 = b.Op(OpType::kTanh, "q2", {b.Op(OpType::kTanh, "q1", {a})});
  b.Output(b.Op(OpType::kAdd, "out", {p2, q2}));
  Graph g = b.Take();
  MemoryPlannerOptions no_alias{false, false, false, {}};
  MemoryPlanStats one, two;
  ASSERT_TRUE(PlanMemory(g, Schedule::Sequential(g), no_alias, &one).ok());
  Schedule split;
  split.num_streams = 2;
  split.stream = {0, 0, 0, 1, 1, 0};  // a p1 p2 | q1 q2 | out
  split.events = MinimalEvents(g, split.stream, 2, nullptr);
  EXPECT_EQ(split.events.size(), 2u);  // a -> q1, q2 -> out
  auto plan = PlanMemory(g, split, no_alias, &two);
  ASSERT_TRUE(plan.ok());
  EXPECT_GT(two.arena_bytes, one.arena_bytes);
  ExecutionPlan full{split, *plan};
  ASSERT_TRUE(ValidateExecutionPlan(g, full).ok());
  const auto inputs = testing::RandomInputs(g);
  testing::ExpectClose(testing::RunGraph(g, inputs),
                       testing::RunGraph(g, inputs, std::make_shared<ExecutionPlan>(full), 2), 0.f);
}

TEST(MemoryPlannerTest, ConcatInputsAreWrittenIntoTheirSlices) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 2, 3, 3});
  auto a = b.Op(OpType::kRelu, "a", {x});
  auto c = b.Op(OpType::kSigmoid, "c", {x});
  auto cat = b.Op(OpType::kConcat, "cat", {a, c}, Attrs({{"axis", int64_t{1}}}));
  b.Output(b.Op(OpType::kTanh, "out", {cat}));
  Graph g = b.Take();
  MemoryPlanStats stats;
  auto plan = PlanMemory(g, Schedule::Sequential(g), {}, &stats);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(stats.elided_concats, 1);
  const auto off = [&](const char* n) {
    return plan->offsets[static_cast<size_t>(*g.FindValue(n))];
  };
  EXPECT_EQ(off("a"), off("cat"));
  EXPECT_EQ(off("c"), off("cat") + 2 * 9 * 4);
  ExecutionPlan full{Schedule::Sequential(g), *plan};
  ASSERT_TRUE(ValidateExecutionPlan(g, full).ok());
  const auto inputs = testing::RandomInputs(g);
  testing::ExpectClose(testing::RunGraph(g, inputs),
                       testing::RunGraph(g, inputs, std::make_shared<ExecutionPlan>(full)), 0.f);
}

// DenseNet's pattern: every layer concatenates all earlier outputs of the block. The last
// Concat takes the parts as slices and every earlier one is a prefix of its buffer: all
// elided, each Concat's output at the block buffer's start, the run bit-identical.
TEST(MemoryPlannerTest, GrowingConcatsArePrefixesOfOneBuffer) {
  GraphBuilder b;
  const auto cat = [&](const char* name, std::vector<ValueId> parts) {
    return b.Op(OpType::kConcat, name, std::move(parts), Attrs({{"axis", int64_t{1}}}));
  };
  auto x = b.Op(OpType::kRelu, "x", {b.Input("in", {1, 2, 3, 3})});
  auto y1 = b.Op(OpType::kSigmoid, "y1", {x});
  auto c2 = cat("c2", {x, y1});
  auto y2 = b.Op(OpType::kFusedConv, "y2",
                 {b.Op(OpType::kTanh, "t2", {c2}), b.Const("w2", {2, 4, 1, 1})});
  auto c3 = cat("c3", {x, y1, y2});
  auto y3 = b.Op(OpType::kFusedConv, "y3",
                 {b.Op(OpType::kTanh, "t3", {c3}), b.Const("w3", {2, 6, 1, 1})});
  auto c4 = cat("c4", {x, y1, y2, y3});
  b.Output(b.Op(OpType::kTanh, "out", {c4}));
  Graph g = b.Take();
  MemoryPlanStats stats;
  auto plan = PlanMemory(g, Schedule::Sequential(g), {}, &stats);
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  EXPECT_EQ(stats.elided_concats, 3);
  const auto off = [&](const char* n) {
    return plan->offsets[static_cast<size_t>(*g.FindValue(n))];
  };
  EXPECT_EQ(off("c2"), off("c4"));
  EXPECT_EQ(off("c3"), off("c4"));
  EXPECT_EQ(off("x"), off("c4"));
  EXPECT_EQ(off("y3"), off("c4") + 6 * 9 * 4);
  ExecutionPlan full{Schedule::Sequential(g), *plan};
  ASSERT_TRUE(ValidateExecutionPlan(g, full).ok());
  const auto inputs = testing::RandomInputs(g);
  testing::ExpectClose(testing::RunGraph(g, inputs),
                       testing::RunGraph(g, inputs, std::make_shared<ExecutionPlan>(full)), 0.f);
  // Two Concats sharing a part that are not prefixes of one another (c = [x, y], d = [z, y]
  // would put x and z on the same bytes) are refused, whatever the offsets say.
  GraphBuilder b2;
  auto p = b2.Op(OpType::kRelu, "p", {b2.Input("in", {1, 2, 3, 3})});
  auto q = b2.Op(OpType::kSigmoid, "q", {p});
  auto r = b2.Op(OpType::kTanh, "r", {p});
  auto cq = b2.Op(OpType::kConcat, "cq", {q, p}, Attrs({{"axis", int64_t{1}}}));
  auto cr = b2.Op(OpType::kConcat, "cr", {r, p}, Attrs({{"axis", int64_t{1}}}));
  b2.Output(b2.Op(OpType::kAdd, "out", {cq, cr}));
  Graph h = b2.Take();
  auto hp = PlanMemory(h, Schedule::Sequential(h), {}, nullptr);
  ASSERT_TRUE(hp.ok());
  MemoryPlan bad = *hp;
  const auto hv = [&](const char* n) { return static_cast<size_t>(*h.FindValue(n)); };
  bad.elided.clear();
  for (size_t n = 0; n < h.num_nodes(); ++n) {
    if (h.node(static_cast<NodeId>(n)).op == OpType::kConcat)
      bad.elided.push_back(static_cast<NodeId>(n));
  }
  bad.inplace_of.assign(h.num_values(), kNoValue);
  const int64_t base = 0, part = 2 * 9 * 4;
  bad.offsets[hv("q")] = base;
  bad.offsets[hv("r")] = base;
  bad.offsets[hv("p")] = base + part;
  bad.offsets[hv("cq")] = base;
  bad.offsets[hv("cr")] = base;
  bad.offsets[hv("out")] = MemoryPlan::kNotPlanned;
  bad.arena_bytes = 2 * part;
  auto st = ValidateExecutionPlan(h, ExecutionPlan{Schedule::Sequential(h), bad});
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.ToString().find("two Concat buffers"), std::string::npos) << st.ToString();
}

}  // namespace
}  // namespace kiln
