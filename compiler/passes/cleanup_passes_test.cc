// Golden-text and numeric tests of the cleanup passes: remove-identity, fold-transposes,
// dead-code, and fold-constants on PyTorch's Shape -> Gather -> Unsqueeze -> Concat chain.
#include <gtest/gtest.h>

#include "compiler/passes/passes.h"
#include "tests/graph_builder.h"
#include "tests/pass_test_util.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

TEST(RemoveIdentityTest, IdentityAndDropoutGoOutputNameKept) {
  GraphBuilder b;
  auto x = b.Input("x", {2, 3});
  auto id = b.Op(OpType::kIdentity, "id", {x});
  auto relu = b.Op(OpType::kRelu, "relu", {id});
  auto drop = b.OpN(OpType::kDropout, "drop", {relu}, 1)[0];
  b.Output(drop);
  b.Output(b.Op(OpType::kIdentity, "passthrough", {x}));  // input -> output: must stay
  Graph g = b.Take();
  const auto inputs = testing::RandomInputs(g);
  const auto before = testing::RunGraph(g, inputs);
  std::map<std::string, int64_t> counters;
  const std::string text = testing::RunPassForTest(MakeRemoveIdentityPass(), g, &counters);
  EXPECT_EQ(text,
            "graph main(%x: f32[2,3]) -> (%drop: f32[2,3], %passthrough: f32[2,3])\n"
            "  %drop = Relu(%x) : f32[2,3]  # relu\n"
            "  %passthrough = Identity(%x) : f32[2,3]  # passthrough\n");
  EXPECT_EQ(counters["removed"], 2);
  testing::ExpectClose(before, testing::RunGraph(g, inputs), 0.f);
}

TEST(RemoveIdentityTest, PadByZeroGoesOthersStay) {
  // What PyTorch exports before densenet's AveragePool: Pad with constant pads of zeros.
  GraphBuilder b;
  auto x = b.Input("x", {1, 2, 4, 4});
  auto zero = b.Op(OpType::kPad, "zero", {x, b.ConstI64("z", {8}, {0, 0, 0, 0, 0, 0, 0, 0})});
  auto relu = b.Op(OpType::kRelu, "relu", {zero});
  b.Output(b.Op(OpType::kPad, "real", {relu, b.ConstI64("p", {8}, {0, 0, 1, 0, 0, 0, 0, 1})},
                Attrs({{"mode", std::string("edge")}})));
  Graph g = b.Take();
  const auto inputs = testing::RandomInputs(g);
  const auto before = testing::RunGraph(g, inputs);
  std::map<std::string, int64_t> counters;
  const std::string text = testing::RunPassForTest(MakeRemoveIdentityPass(), g, &counters);
  EXPECT_EQ(counters["removed"], 1);
  EXPECT_EQ(text.find("# zero"), std::string::npos) << text;
  EXPECT_NE(text.find("Relu(%x)"), std::string::npos) << text;
  EXPECT_NE(text.find("# real"), std::string::npos) << text;
  testing::ExpectClose(before, testing::RunGraph(g, inputs), 0.f);
}

TEST(FoldTransposesTest, InversePairVanishesChainComposes) {
  GraphBuilder b;
  auto x = b.Input("x", {2, 3, 4});
  auto t1 = b.Op(OpType::kTranspose, "t1", {x}, Attrs({{"perm", std::vector<int64_t>{2, 0, 1}}}));
  auto t2 = b.Op(OpType::kTranspose, "t2", {t1}, Attrs({{"perm", std::vector<int64_t>{1, 2, 0}}}));
  auto relu = b.Op(OpType::kRelu, "relu", {t2});
  auto t3 =
      b.Op(OpType::kTranspose, "t3", {relu}, Attrs({{"perm", std::vector<int64_t>{1, 0, 2}}}));
  b.Output(b.Op(OpType::kTranspose, "t4", {t3}));  // default perm: reverse
  Graph g = b.Take();
  const auto inputs = testing::RandomInputs(g);
  const auto before = testing::RunGraph(g, inputs);
  std::map<std::string, int64_t> counters;
  const std::string text = testing::RunPassForTest(MakeFoldTransposesPass(), g, &counters);
  // t2(t1(x)) is the identity; t4(t3(y)) = transpose(y, perm [2,0,1]).
  EXPECT_EQ(text,
            "graph main(%x: f32[2,3,4]) -> (%t4: f32[4,2,3])\n"
            "  %relu = Relu(%x) : f32[2,3,4]  # relu\n"
            "  %t4 = Transpose(%relu) {perm=[2,0,1]} : f32[4,2,3]  # t4 <- t3, t4\n");
  EXPECT_EQ(counters["removed"], 1);
  EXPECT_EQ(counters["composed"], 2);
  testing::ExpectClose(before, testing::RunGraph(g, inputs), 0.f);
}

TEST(DeadCodeTest, UnusedBranchAndConstantsGo) {
  GraphBuilder b;
  auto x = b.Input("x", {4});
  auto used = b.Op(OpType::kRelu, "used", {x});
  b.Op(OpType::kAdd, "unused", {x, b.Const("k", {4})});
  b.Output(used);
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  const std::string text = testing::RunPassForTest(MakeDeadCodePass(), g, &counters);
  EXPECT_EQ(text,
            "graph main(%x: f32[4]) -> (%used: f32[4])\n  %used = Relu(%x) : f32[4]  # used\n");
  EXPECT_EQ(counters["nodes-removed"], 1);
  EXPECT_EQ(counters["values-removed"], 2);
}

TEST(FoldConstantsTest, PyTorchShapeChainBecomesAConstant) {
  // reshape(x, concat([unsqueeze(gather(shape(x), 0)), [-1]])): what torch.flatten exports.
  GraphBuilder b;
  auto x = b.Input("x", {2, 3, 4});
  auto shape = b.Op(OpType::kShape, "shape", {x});
  auto dim0 = b.Op(OpType::kGather, "gather", {shape, b.ConstI64("zero", {}, {0})});
  auto unsq = b.Op(OpType::kUnsqueeze, "unsqueeze", {dim0, b.ConstI64("axes", {1}, {0})});
  b.Output(b.Op(OpType::kConcat, "concat", {unsq, b.ConstI64("minus1", {1}, {-1})},
                Attrs({{"axis", int64_t{0}}})));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  testing::RunPassForTest(MakeFoldConstantsPass(), g, &counters);
  EXPECT_EQ(counters["folded"], 4);
  EXPECT_EQ(g.num_nodes(), 0u);
  const Value& v = g.value(g.outputs()[0]);
  ASSERT_TRUE(v.is_constant());
  EXPECT_EQ(v.constant->as<int64_t>()[0], 2);
  EXPECT_EQ(v.constant->as<int64_t>()[1], -1);
}

}  // namespace
}  // namespace kiln
