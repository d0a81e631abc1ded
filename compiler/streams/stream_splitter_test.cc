// Stream splitting: the critical path stays on stream 0, branches move to other streams,
// and events are a transitive reduction of the cross-stream dependencies.
#include "compiler/streams/stream_splitter.h"

#include <gtest/gtest.h>

#include "ir/happens_before.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

// An inception-like block: a heavy 3x3 branch, a light 1x1 branch and a pooling branch.
Graph Inception() {
  GraphBuilder b;
  auto x = b.Input("x", {1, 8, 8, 8});
  auto stem = b.Op(OpType::kFusedConv, "stem", {x, b.Const("ws", {8, 8, 1, 1})});
  auto heavy1 = b.Op(OpType::kFusedConv, "heavy1", {stem, b.Const("wh1", {16, 8, 3, 3})},
                     Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  auto heavy2 = b.Op(OpType::kFusedConv, "heavy2", {heavy1, b.Const("wh2", {16, 16, 3, 3})},
                     Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  auto light = b.Op(OpType::kFusedConv, "light", {stem, b.Const("wl", {4, 8, 1, 1})});
  auto pool = b.Op(OpType::kMaxPool, "pool", {stem},
                   Attrs({{"kernel_shape", std::vector<int64_t>{3, 3}},
                          {"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"strides", std::vector<int64_t>{1, 1}}}));
  auto proj = b.Op(OpType::kFusedConv, "proj", {pool, b.Const("wp", {4, 8, 1, 1})});
  b.Output(b.Op(OpType::kConcat, "cat", {heavy2, light, proj}, Attrs({{"axis", int64_t{1}}})));
  return b.Take();
}

TEST(StreamSplitterTest, CriticalPathOnStreamZeroBranchesElsewhere) {
  Graph g = Inception();
  StreamStats stats;
  auto s = SplitStreams(g, 2, &stats);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto stream_of = [&](const char* name) {
    for (size_t n = 0; n < g.num_nodes(); ++n) {
      if (g.node(static_cast<NodeId>(n)).name == name) return s->stream[n];
    }
    return -1;
  };
  for (const char* n : {"stem", "heavy1", "heavy2", "cat"}) EXPECT_EQ(stream_of(n), 0) << n;
  for (const char* n : {"light", "pool", "proj"}) EXPECT_EQ(stream_of(n), 1) << n;
  EXPECT_EQ(s->num_streams, 2);
  // stem -> light, and proj -> cat; pool and proj follow light on stream 1, and light -> cat
  // is implied by proj -> cat: 2 events for 4 cross-stream edges.
  EXPECT_EQ(stats.cross_stream_edges, 4);
  EXPECT_EQ(stats.events, 2);
  ExecutionPlan plan{*s, MemoryPlan::NoReuse(g)};
  EXPECT_TRUE(ValidateExecutionPlan(g, plan).ok());
  const auto inputs = testing::RandomInputs(g);
  testing::ExpectClose(testing::RunGraph(g, inputs),
                       testing::RunGraph(g, inputs, std::make_shared<ExecutionPlan>(plan), 2), 0.f);
}

TEST(StreamSplitterTest, OneStreamAndBadCounts) {
  Graph g = Inception();
  auto one = SplitStreams(g, 1);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->num_streams, 1);
  EXPECT_TRUE(one->events.empty());
  EXPECT_FALSE(SplitStreams(g, 0).ok());
  EXPECT_FALSE(SplitStreams(g, 17).ok());
  // More streams than independent branches: unused streams are dropped.
  auto many = SplitStreams(g, 8);
  ASSERT_TRUE(many.ok());
  EXPECT_LE(many->num_streams, 3);
}

TEST(StreamSplitterTest, MinimalEventsDropImpliedDependencies) {
  // a (s0) -> b (s1); c (s1) reads a and b: a -> c is implied by a -> b and stream order.
  GraphBuilder b;
  auto x = b.Input("x", {4});
  auto a = b.Op(OpType::kRelu, "a", {x});
  auto bb = b.Op(OpType::kSigmoid, "b", {a});
  b.Output(b.Op(OpType::kAdd, "c", {a, bb}));
  Graph g = b.Take();
  int64_t cross = 0;
  auto events = MinimalEvents(g, {0, 1, 1}, 2, &cross);
  EXPECT_EQ(cross, 2);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].signal, 0);
  EXPECT_EQ(events[0].wait, 1);
}

}  // namespace
}  // namespace kiln
