// GraphRewriter: use lists through every mutation, anchored insertion order, output names.
#include "ir/rewriter.h"

#include <gtest/gtest.h>

#include "ir/text_dump.h"
#include "ir/verifier.h"
#include "ir/op_schema.h"

namespace kiln {
namespace {

Value F32Value(const std::string& name) {
  Value v;
  v.name = name;
  v.dtype = DType::kF32;
  v.shape = {4};
  v.shape_known = true;
  return v;
}

ValueId F32(Graph& g, const std::string& name) { return g.AddValue(F32Value(name)); }

// x -> relu a -> sigmoid b (output); a also feeds tanh c (output).
Graph Sample() {
  Graph g;
  const ValueId x = F32(g, "x"), a = F32(g, "a"), b = F32(g, "b"), c = F32(g, "c");
  g.inputs() = {x};
  g.outputs() = {b, c};
  g.AddNode(Node{"relu", OpType::kRelu, 17, {x}, {a}, {}, "", {}});
  g.AddNode(Node{"sigmoid", OpType::kSigmoid, 17, {a}, {b}, {}, "", {}});
  g.AddNode(Node{"tanh", OpType::kTanh, 17, {a}, {c}, {}, "", {}});
  return g;
}

TEST(RewriterTest, UseListsFollowMutations) {
  Graph g = Sample();
  GraphRewriter rw(g);
  const ValueId x = *g.FindValue("x"), a = *g.FindValue("a"), b = *g.FindValue("b");
  EXPECT_EQ(rw.uses(a).size(), 2u);
  EXPECT_EQ(rw.NumUses(b), 1u);  // graph output
  EXPECT_FALSE(rw.SoleUser(a).has_value());
  EXPECT_EQ(*rw.Producer(a), 0);
  rw.SetInput(2, 0, x);  // tanh now reads x
  EXPECT_EQ(rw.uses(a).size(), 1u);
  EXPECT_EQ(rw.uses(x).size(), 2u);
  EXPECT_EQ(*rw.SoleUser(a), 1);
  // The relu output is still used: erasing it is refused.
  EXPECT_FALSE(rw.EraseNode(0).ok());
  ASSERT_TRUE(rw.Commit().ok());
  EXPECT_TRUE(VerifyGraph(g).ok());
}

TEST(RewriterTest, ReplaceOutputKeepsItsPublicName) {
  Graph g = Sample();
  GraphRewriter rw(g);
  const ValueId a = *g.FindValue("a"), b = *g.FindValue("b");
  // Drop the sigmoid: its output b becomes a, which takes the name "b".
  rw.ReplaceAllUsesWith(b, a);
  ASSERT_TRUE(rw.EraseNode(1).ok());
  ASSERT_TRUE(rw.Commit().ok());
  ASSERT_TRUE(VerifyGraph(g).ok());
  EXPECT_EQ(GraphToText(g),
            "graph main(%x: f32[4]) -> (%b: f32[4], %c: f32[4])\n"
            "  %b = Relu(%x) : f32[4]  # relu\n"
            "  %c = Tanh(%b) : f32[4]  # tanh\n");
}

TEST(RewriterTest, InsertedNodesLandBeforeTheirAnchorsWithMergedSources) {
  Graph g = Sample();
  GraphRewriter rw(g);
  const ValueId x = *g.FindValue("x"), a = *g.FindValue("a");
  // Replace relu with abs -> relu' chain inserted before the old relu.
  const ValueId t = rw.AddValue(F32Value("t"));
  const ValueId a2 = rw.AddValue(F32Value("a2"));
  Node relu2{"relu2", OpType::kRelu, 17, {t}, {a2}, {}, "", rw.MergeSources({0, 1})};
  Node abs{"abs", OpType::kAbs, 17, {x}, {t}, {}, "", {}};
  const NodeId r2 = rw.InsertNode(relu2, 0);
  rw.InsertNode(abs, r2);  // before relu2, which itself goes before the old relu
  rw.ReplaceAllUsesWith(a, a2);
  ASSERT_TRUE(rw.EraseNode(0).ok());
  ASSERT_TRUE(rw.Commit().ok());
  ASSERT_TRUE(VerifyGraph(g).ok());
  EXPECT_EQ(GraphToText(g),
            "graph main(%x: f32[4]) -> (%b: f32[4], %c: f32[4])\n"
            "  %t = Abs(%x) : f32[4]  # abs\n"
            "  %a2 = Relu(%t) : f32[4]  # relu2 <- relu, sigmoid\n"
            "  %b = Sigmoid(%a2) : f32[4]  # sigmoid\n"
            "  %c = Tanh(%a2) : f32[4]  # tanh\n");
}

}  // namespace
}  // namespace kiln
