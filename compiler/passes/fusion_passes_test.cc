// Golden-text and numeric tests of the fusion passes: fuse-activation (every activation and
// SiLU), fuse-residual, fold-batchnorm, fold-pad, matmul-to-gemm, fold-flatten-into-gemm.
#include <gtest/gtest.h>

#include <limits>

#include "compiler/passes/passes.h"
#include "tests/graph_builder.h"
#include "tests/pass_test_util.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

TEST(FuseActivationTest, ConvReluBecomesOneFusedConv) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 2, 5, 5});
  auto w = b.Const("w", {3, 2, 3, 3});
  auto bias = b.Const("b", {3});
  auto c = b.Op(OpType::kConv, "conv", {x, w, bias},
                Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  auto r = b.Op(OpType::kRelu, "relu", {c});
  b.Output(r);
  Graph g = b.Take();
  const auto inputs = testing::RandomInputs(g);
  const auto before = testing::RunGraph(g, inputs);
  std::map<std::string, int64_t> counters;
  const std::string text = testing::RunPassForTest(MakeFuseActivationPass(), g, &counters);
  EXPECT_EQ(text,
            "graph main(%x: f32[1,2,5,5]) -> (%relu: f32[1,3,5,5])\n"
            "  const %w: f32[3,2,3,3] (216 bytes)\n"
            "  const %b: f32[3] (12 bytes)\n"
            "  %relu = FusedConv(%x, %w, %b) {activation=\"relu\", pads=[1,1,1,1]} : "
            "f32[1,3,5,5]  # conv <- conv, relu\n");
  EXPECT_EQ(counters["relu"], 1);
  EXPECT_EQ(counters["conv"], 1);
  testing::ExpectClose(before, testing::RunGraph(g, inputs), 0.f);  // bit-identical
}

// Runs `make` on the graph and checks outputs before and after (within tol).
template <typename MakePass>
std::string RewriteAndCompare(Graph& g, MakePass make, std::map<std::string, int64_t>* counters,
                              float tol) {
  const auto inputs = testing::RandomInputs(g);
  const auto before = testing::RunGraph(g, inputs);
  const std::string text = testing::RunPassForTest(make(), g, counters);
  testing::ExpectClose(before, testing::RunGraph(g, inputs), tol);
  return text;
}

TEST(FuseActivationTest, EveryActivationAndClipBounds) {
  struct Case {
    OpType op;
    Attributes attrs;
    std::string expect;  // the fused node's activation attributes
  };
  const std::vector<Case> cases = {
      {OpType::kSigmoid, {}, "activation=\"sigmoid\""},
      {OpType::kTanh, {}, "activation=\"tanh\""},
      {OpType::kHardSwish, {}, "activation=\"hard_swish\""},
      {OpType::kLeakyRelu, Attrs({{"alpha", 0.25f}}),
       "activation=\"leaky_relu\", activation_alpha=0.25"},
      {OpType::kHardSigmoid, Attrs({{"alpha", 0.5f}, {"beta", 0.25f}}),
       "activation=\"hard_sigmoid\", activation_alpha=0.5, activation_beta=0.25"},
  };
  for (const Case& c : cases) {
    GraphBuilder b;
    auto x = b.Input("x", {1, 2, 4, 4});
    auto conv = b.Op(OpType::kConv, "conv", {x, b.Const("w", {2, 2, 1, 1})});
    b.Output(b.Op(c.op, "act", {conv}, c.attrs));
    Graph g = b.Take();
    std::map<std::string, int64_t> counters;
    const std::string text = RewriteAndCompare(g, MakeFuseActivationPass, &counters, 1e-6f);
    EXPECT_NE(text.find("%act = FusedConv(%x, %w) {" + c.expect + "}"), std::string::npos)
        << OpTypeName(c.op) << "\n"
        << text;
  }
  // Relu6 as Clip with constant bounds.
  GraphBuilder b;
  auto x = b.Input("x", {1, 2, 4, 4});
  auto conv = b.Op(OpType::kConv, "conv", {x, b.Const("w", {2, 2, 1, 1})});
  b.Output(
      b.Op(OpType::kClip, "relu6", {conv, b.Const("lo", {}, {0.f}), b.Const("hi", {}, {6.f})}));
  Graph g = b.Take();
  const std::string text = RewriteAndCompare(g, MakeFuseActivationPass, nullptr, 0.f);
  EXPECT_NE(text.find("%relu6 = FusedConv(%x, %w) {activation=\"clip\", activation_alpha=0, "
                      "activation_beta=6}"),
            std::string::npos)
      << text;
}

TEST(FuseActivationTest, SiluPatternAndGemm) {
  GraphBuilder b;
  auto a = b.Input("a", {2, 8});
  auto gemm = b.Op(OpType::kGemm, "fc", {a, b.Const("w", {4, 8}), b.Const("c", {4})},
                   Attrs({{"transB", int64_t{1}}}));
  auto sig = b.Op(OpType::kSigmoid, "sig", {gemm});
  b.Output(b.Op(OpType::kMul, "silu", {sig, gemm}));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  const std::string text = RewriteAndCompare(g, MakeFuseActivationPass, &counters, 0.f);
  EXPECT_EQ(text,
            "graph main(%a: f32[2,8]) -> (%silu: f32[2,4])\n"
            "  const %w: f32[4,8] (128 bytes)\n"
            "  const %c: f32[4] (16 bytes)\n"
            "  %silu = FusedGemm(%a, %w, %c) {activation=\"silu\", transB=1} : f32[2,4]  "
            "# fc <- fc, sig, silu\n");
  EXPECT_EQ(counters["silu"], 1);
}

TEST(FuseActivationTest, LeavesSharedOutputsAlone) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 2, 4, 4});
  auto conv = b.Op(OpType::kConv, "conv", {x, b.Const("w", {2, 2, 1, 1})});
  b.Output(b.Op(OpType::kRelu, "relu", {conv}));
  b.Output(conv);  // the pre-activation value is needed too
  Graph g = b.Take();
  const std::string text = RewriteAndCompare(g, MakeFuseActivationPass, nullptr, 0.f);
  EXPECT_NE(text.find("%conv = FusedConv(%x, %w) :"), std::string::npos) << text;
  EXPECT_NE(text.find("%relu = Relu(%conv)"), std::string::npos) << text;
}

TEST(FuseResidualTest, AddAndReluGoIntoTheEpilogue) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 4, 3, 3});
  auto c1 = b.Op(OpType::kFusedConv, "c1", {x, b.Const("w1", {4, 4, 1, 1})},
                 Attrs({{"activation", std::string("relu")}}));
  auto c2 = b.Op(OpType::kFusedConv, "c2", {c1, b.Const("w2", {4, 4, 1, 1}), b.Const("b2", {4})});
  auto add = b.Op(OpType::kAdd, "add", {x, c2});
  b.Output(b.Op(OpType::kRelu, "out", {add}));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  const std::string text = RewriteAndCompare(g, MakeFuseResidualPass, &counters, 0.f);
  EXPECT_EQ(text,
            "graph main(%x: f32[1,4,3,3]) -> (%out: f32[1,4,3,3])\n"
            "  const %w1: f32[4,4,1,1] (64 bytes)\n"
            "  const %w2: f32[4,4,1,1] (64 bytes)\n"
            "  const %b2: f32[4] (16 bytes)\n"
            "  %c1 = FusedConv(%x, %w1) {activation=\"relu\"} : f32[1,4,3,3]  # c1\n"
            "  %out = FusedConv(%c1, %w2, %b2, %x) {activation=\"relu\"} : f32[1,4,3,3]  "
            "# c2 <- c2, add, out\n");
  EXPECT_EQ(counters["residual"], 1);
  EXPECT_EQ(counters["relu"], 1);
}

TEST(FoldBatchNormTest, BatchNormAndChannelMulAddFoldIntoConv) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 3, 4, 4});
  auto conv = b.Op(OpType::kConv, "conv", {x, b.Const("w", {2, 3, 3, 3}), b.Const("b", {2})});
  auto bn = b.Op(OpType::kBatchNormalization, "bn",
                 {conv, b.Const("gamma", {2}), b.Const("beta", {2}), b.Const("mean", {2}),
                  b.Const("var", {2}, {0.5f, 2.f})});
  auto mul = b.Op(OpType::kMul, "mul", {bn, b.Const("s", {2, 1, 1}, {2.f, -3.f})});
  b.Output(b.Op(OpType::kAdd, "add", {b.Const("t", {1, 2, 1, 1}, {0.5f, 1.5f}), mul}));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  const std::string text = RewriteAndCompare(g, MakeFoldBatchNormPass, &counters, 1e-5f);
  EXPECT_EQ(counters["batchnorm"], 1);
  EXPECT_EQ(counters["mul-add"], 2);
  EXPECT_NE(text.find("%add = Conv(%x, %w.folded_2, %conv.bias.folded_2) : f32[1,2,2,2]  "
                      "# conv <- conv, bn, mul, add"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("BatchNormalization"), std::string::npos) << text;
}

TEST(FoldBatchNormTest, PreActivationBatchNormBecomesDepthwiseConv) {
  // densenet's "Concat -> BN -> Relu": nothing absorbs the BN; before a lone activation it
  // becomes a depthwise 1x1 Conv (fuse-activation then takes the Relu). A BN whose output is
  // also read elsewhere, or is not followed by an activation, stays.
  GraphBuilder b;
  auto x = b.Input("x", {1, 3, 4, 5});
  auto bn = b.Op(OpType::kBatchNormalization, "bn",
                 {x, b.Const("gamma", {3}), b.Const("beta", {3}), b.Const("mean", {3}),
                  b.Const("var", {3}, {0.5f, 2.f, 1.f})});
  auto relu = b.Op(OpType::kRelu, "relu", {bn});
  auto bn2 = b.Op(OpType::kBatchNormalization, "bn2",
                  {relu, b.Const("gamma2", {3}), b.Const("beta2", {3}), b.Const("mean2", {3}),
                   b.Const("var2", {3}, {1.f, 1.f, 1.f})});
  b.Output(b.Op(OpType::kAdd, "add", {bn2, relu}));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  const std::string text = RewriteAndCompare(g, MakeFoldBatchNormPass, &counters, 1e-5f);
  EXPECT_EQ(counters["batchnorm-to-depthwise"], 1);
  EXPECT_NE(text.find("%bn = Conv(%x, %bn.dw_weight, %bn.dw_bias) {group=3, kernel_shape=[1,1]}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%bn2 = BatchNormalization("), std::string::npos) << text;
}

TEST(FoldBatchNormTest, GemmFeaturesBothWeightLayouts) {
  for (int64_t trans_b : {0, 1}) {
    GraphBuilder b;
    auto a = b.Input("a", {2, 6});
    const Shape ws = trans_b ? Shape{5, 6} : Shape{6, 5};
    auto gemm = b.Op(OpType::kGemm, "fc", {a, b.Const("w", ws), b.Const("c", {5})},
                     Attrs({{"transB", trans_b}}));
    b.Output(b.Op(OpType::kBatchNormalization, "bn",
                  {gemm, b.Const("gamma", {5}), b.Const("beta", {5}), b.Const("mean", {5}),
                   b.Const("var", {5}, {1.f, 2.f, 3.f, 4.f, 5.f})}));
    Graph g = b.Take();
    std::map<std::string, int64_t> counters;
    RewriteAndCompare(g, MakeFoldBatchNormPass, &counters, 1e-5f);
    EXPECT_EQ(counters["batchnorm"], 1) << "transB " << trans_b;
    EXPECT_EQ(g.num_nodes(), 1u);
  }
}

TEST(FoldPadTest, ZeroPadFoldsIntoConvNotIntoMaxPool) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 2, 5, 5});
  auto pad = b.Op(OpType::kPad, "pad", {x, b.ConstI64("pads", {8}, {0, 0, 1, 2, 0, 0, 1, 0})});
  auto conv = b.Op(OpType::kConv, "conv", {pad, b.Const("w", {2, 2, 3, 3})},
                   Attrs({{"pads", std::vector<int64_t>{0, 1, 0, 1}}}));
  auto pad2 =
      b.Op(OpType::kPad, "pad2", {conv, b.ConstI64("pads2", {8}, {0, 0, 1, 1, 0, 0, 1, 1})});
  b.Output(b.Op(OpType::kMaxPool, "pool", {pad2},
                Attrs({{"kernel_shape", std::vector<int64_t>{2, 2}}})));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  const std::string text = RewriteAndCompare(g, MakeFoldPadPass, &counters, 1e-6f);
  EXPECT_EQ(counters["folded"], 1);
  EXPECT_NE(text.find("%conv = Conv(%x, %w) {pads=[1,3,1,1]} : f32[1,2,5,7]  # conv <- pad, conv"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%pad2 = Pad("), std::string::npos) << text;
}

TEST(FoldPadTest, MinusInfinityPadFoldsIntoMaxPool) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 2, 5, 5});
  const float inf = std::numeric_limits<float>::infinity();
  auto pad = b.Op(OpType::kPad, "pad",
                  {x, b.ConstI64("pads", {8}, {0, 0, 1, 1, 0, 0, 2, 1}), b.Const("v", {}, {-inf})});
  b.Output(b.Op(OpType::kMaxPool, "pool", {pad},
                Attrs({{"kernel_shape", std::vector<int64_t>{3, 3}},
                       {"strides", std::vector<int64_t>{2, 2}}})));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  const std::string text = RewriteAndCompare(g, MakeFoldPadPass, &counters, 0.f);
  EXPECT_EQ(counters["folded"], 1);
  EXPECT_NE(text.find("%pool = MaxPool(%x) {kernel_shape=[3,3], pads=[1,1,2,1], strides=[2,2]}"),
            std::string::npos)
      << text;
}

TEST(WeightsF16Test, FusedWeightsStoredAsHalfInTheirLayout) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 3, 6, 6});
  auto c = b.Op(OpType::kFusedConv, "conv", {x, b.Const("w", {20, 3, 3, 3}), b.Const("b", {20})});
  b.Output(b.Op(OpType::kFusedGemm, "fc", {c, b.Const("fw", {5, 20 * 4 * 4})},
                Attrs({{"transB", int64_t{1}}})));
  Graph g = b.Take();
  const auto inputs = testing::RandomInputs(g);
  const auto before = testing::RunGraph(g, inputs);
  CompileOptions options;
  options.weights_f16 = true;
  std::map<std::string, int64_t> counters;
  const std::string text = testing::RunPassForTest(MakeWeightsF16Pass(), g, &counters, options);
  EXPECT_EQ(counters["weights"], 2);
  EXPECT_EQ(counters["bytes-saved"], (20 * 27 + 5 * 320) * 2);
  EXPECT_NE(text.find("const %w.f16: f16[20,3,3,3] (1080 bytes)"), std::string::npos) << text;
  EXPECT_NE(text.find("const %b: f32[20]"), std::string::npos) << text;  // biases stay f32
  testing::ExpectClose(before, testing::RunGraph(g, inputs), 2e-3f);
}

TEST(MatMulToGemmTest, MatMulAddThenFlattenFolds) {
  GraphBuilder b;
  auto x = b.Input("x", {1, 8, 1, 1});
  auto flat = b.Op(OpType::kFlatten, "flat", {x}, Attrs({{"axis", int64_t{1}}}));
  auto mm = b.Op(OpType::kMatMul, "mm", {flat, b.Const("w", {8, 3})});
  b.Output(b.Op(OpType::kAdd, "add", {mm, b.Const("bias", {3})}));
  Graph g = b.Take();
  std::map<std::string, int64_t> counters;
  std::string text = RewriteAndCompare(g, MakeMatMulToGemmPass, &counters, 0.f);
  EXPECT_EQ(counters["matmul-add"], 1);
  EXPECT_NE(text.find("%add = Gemm(%flat, %w, %bias) : f32[1,3]  # mm <- mm, add"),
            std::string::npos)
      << text;
  testing::RunPassForTest(MakeFuseActivationPass(), g);
  text = RewriteAndCompare(g, MakeFoldFlattenIntoGemmPass, &counters, 0.f);
  EXPECT_EQ(text,
            "graph main(%x: f32[1,8,1,1]) -> (%add: f32[1,3])\n"
            "  const %w: f32[8,3] (96 bytes)\n"
            "  const %bias: f32[3] (12 bytes)\n"
            "  %add = FusedGemm(%x, %w, %bias) {a_flatten_axis=1} : f32[1,3]  "
            "# mm <- flat, mm, add\n");
}

// A MatMul-style [K, N] FusedGemm weight: with one row of A, pack-weights transposes it and
// packs it for the CPU's Block16 matrix-vector kernel; with several rows it stays plain for
// the packed GEMM. Results unchanged either way.
TEST(PackWeightsTest, BatchOneKnWeightsGoToTheBlock16Kernel) {
  for (int64_t rows : {1, 5}) {
    GraphBuilder b;
    auto x = b.Input("x", {rows, 40});
    b.Output(b.Op(OpType::kFusedGemm, "fc", {x, b.Const("w", {40, 23}), b.Const("c", {23})}));
    Graph g = b.Take();
    const auto inputs = testing::RandomInputs(g);
    const auto before = testing::RunGraph(g, inputs);
    CompileOptions options;
    options.target_isa = Isa::kScalar;
    std::map<std::string, int64_t> counters;
    const std::string text = testing::RunPassForTest(MakePackWeightsPass(), g, &counters, options);
    SCOPED_TRACE("rows " + std::to_string(rows) + "\n" + text);
    if (rows == 1) {
      EXPECT_EQ(counters["transposed"], 1);
      EXPECT_EQ(counters["block16o"], 1);
      EXPECT_NE(text.find("transB=1"), std::string::npos);
    } else {
      EXPECT_EQ(counters["transposed"], 0);
      EXPECT_EQ(text.find("transB"), std::string::npos);
    }
    testing::ExpectClose(before, testing::RunGraph(g, inputs), 1e-5f);
  }
}

}  // namespace
}  // namespace kiln
