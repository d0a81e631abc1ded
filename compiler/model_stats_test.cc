// Tests for graph statistics on a hand-built graph whose MACs are computed by hand.
#include "compiler/model_stats.h"

#include <gtest/gtest.h>

namespace kiln {
namespace {

ValueId AddActivation(Graph& g, const std::string& name, Shape shape, bool known = true) {
  Value v;
  v.name = name;
  v.dtype = DType::kF32;
  v.shape = std::move(shape);
  v.shape_known = known;
  return g.AddValue(std::move(v));
}

ValueId AddWeight(Graph& g, const std::string& name, Shape shape) {
  const size_t bytes = static_cast<size_t>(NumElements(shape)) * 4;
  return g.AddConstant(name, DType::kF32, shape,
                       ConstantBytes::FromVector(std::vector<uint8_t>(bytes)));
}

NodeId AddOp(Graph& g, OpType op, const std::string& name, std::vector<ValueId> in,
             std::vector<ValueId> out, Attributes attrs = {}) {
  Node n;
  n.name = name;
  n.op = op;
  n.inputs = std::move(in);
  n.outputs = std::move(out);
  n.attrs = std::move(attrs);
  return g.AddNode(std::move(n));
}

TEST(ModelStats, CountsOpsParametersAndMacs) {
  Graph g;
  const ValueId x = AddActivation(g, "x", {1, 3, 10, 10});
  g.inputs().push_back(x);
  const ValueId w = AddWeight(g, "w", {8, 3, 3, 3});
  const ValueId b = AddWeight(g, "b", {8});
  const ValueId c = AddActivation(g, "c", {1, 8, 8, 8});
  AddOp(g, OpType::kConv, "conv", {x, w, b}, {c});
  const ValueId r = AddActivation(g, "r", {1, 8, 8, 8});
  AddOp(g, OpType::kRelu, "relu", {c}, {r});
  const ValueId f = AddActivation(g, "f", {1, 512});
  AddOp(g, OpType::kFlatten, "flat", {r}, {f});
  const ValueId gw = AddWeight(g, "gw", {10, 512});  // transB=1: [N, K]
  const ValueId gy = AddActivation(g, "gy", {1, 10});
  Attributes gemm;
  gemm.Set("transB", int64_t{1});
  AddOp(g, OpType::kGemm, "fc", {f, gw}, {gy}, gemm);
  const ValueId mw = AddWeight(g, "mw", {10, 4});
  const ValueId y = AddActivation(g, "y", {1, 4});
  AddOp(g, OpType::kMatMul, "mm", {gy, mw}, {y});
  // ConvTranspose on an unknown shape: counted as unknown, not as 0.
  const ValueId tw = AddWeight(g, "tw", {4, 2, 2, 2});
  const ValueId t = AddActivation(g, "t", {}, /*known=*/false);
  AddOp(g, OpType::kConvTranspose, "deconv", {y, tw}, {t});
  // An i64 shape operand is not a weight.
  const ValueId shape =
      g.AddConstant("shape", DType::kI64, {2}, ConstantBytes::FromVector(std::vector<uint8_t>(16)));
  const ValueId r2 = AddActivation(g, "r2", {2, 2});
  AddOp(g, OpType::kReshape, "reshape", {y, shape}, {r2});
  g.outputs().push_back(y);

  const ModelStats s = ComputeModelStats(g);
  ASSERT_EQ(s.inputs.size(), 1u);
  EXPECT_EQ(s.inputs[0].name, "x");
  EXPECT_EQ(s.inputs[0].shape, (Shape{1, 3, 10, 10}));
  ASSERT_EQ(s.outputs.size(), 1u);
  EXPECT_EQ(s.outputs[0].name, "y");
  EXPECT_EQ(s.num_nodes, 7);
  EXPECT_EQ(s.op_histogram.at("Conv"), 1);
  EXPECT_EQ(s.op_histogram.at("Gemm"), 1);
  EXPECT_EQ(s.op_histogram.count("Add"), 0u);
  EXPECT_EQ(s.parameter_count, 8 * 27 + 8 + 10 * 512 + 40 + 32);
  EXPECT_EQ(s.parameter_bytes, s.parameter_count * 4);
  // conv: 512 outputs * 27 taps; gemm: 10 * 512; matmul: 4 * 10.
  EXPECT_EQ(s.macs, 512 * 27 + 10 * 512 + 4 * 10);
  ASSERT_EQ(s.macs_unknown_nodes.size(), 1u);
  EXPECT_EQ(s.macs_unknown_nodes[0], "deconv");
}

TEST(ModelStats, ConvTransposeAndTransposedGemm) {
  Graph g;
  const ValueId x = AddActivation(g, "x", {1, 4, 5, 5});
  const ValueId w = AddWeight(g, "w", {4, 6, 3, 3});  // [C, M/group, kH, kW]
  const ValueId y = AddActivation(g, "y", {1, 6, 7, 7});
  AddOp(g, OpType::kConvTranspose, "deconv", {x, w}, {y});
  const ValueId a = AddActivation(g, "a", {7, 3});  // transA: [K, M] = K 7, M 3
  const ValueId bw = AddWeight(g, "bw", {7, 2});
  const ValueId o = AddActivation(g, "o", {3, 2});
  Attributes attrs;
  attrs.Set("transA", int64_t{1});
  AddOp(g, OpType::kGemm, "gemm", {a, bw}, {o}, attrs);
  const ModelStats s = ComputeModelStats(g);
  EXPECT_EQ(s.macs, 100 * 54 + 6 * 7);
  EXPECT_TRUE(s.macs_unknown_nodes.empty());
}

}  // namespace
}  // namespace kiln
