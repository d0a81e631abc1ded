// The quantization passes end to end on small graphs: calibrate, quantize (Q/DQ), lower to
// integer ops, and compare with the float graph; lower-qdq on a hand-written QDQ graph (golden
// IR); lookup-table chains; equalization; keep-float; sharded statistics; what an accuracy-budget
// step keeps in float.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "compiler/passes/passes.h"
#include "quantizer/accuracy_budget.h"
#include "quantizer/quantize_driver.h"
#include "tests/graph_builder.h"
#include "tests/pass_test_util.h"

namespace kiln::quant {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

// Samples held in memory.
class VectorSource : public calib::SampleSource {
 public:
  explicit VectorSource(std::vector<std::vector<HostTensor>> s) : samples_(std::move(s)) {}
  size_t size() const override { return samples_.size(); }
  std::string id(size_t i) const override { return std::string("#").append(std::to_string(i)); }
  Expected<std::vector<HostTensor>> Load(size_t i) const override { return samples_[i]; }

 private:
  std::vector<std::vector<HostTensor>> samples_;
};

VectorSource RandomSamples(const Graph& g, int n, uint32_t seed) {
  std::vector<std::vector<HostTensor>> s;
  for (int i = 0; i < n; ++i)
    s.push_back(testing::RandomInputs(g, seed + static_cast<uint32_t>(i)));
  return VectorSource(std::move(s));
}

// conv3x3+relu -> conv1x1 + residual + relu -> global pool -> flatten -> gemm.
Graph SmallCnn() {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 3, 8, 8});
  const ValueId c1 =
      b.Op(OpType::kConv, "conv1", {x, b.Const("w1", {6, 3, 3, 3}), b.Const("b1", {6})},
           Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ValueId r1 = b.Op(OpType::kRelu, "relu1", {c1});
  const ValueId c2 =
      b.Op(OpType::kConv, "conv2", {r1, b.Const("w2", {6, 6, 1, 1}), b.Const("b2", {6})});
  const ValueId add = b.Op(OpType::kAdd, "add", {c2, r1});
  const ValueId r2 = b.Op(OpType::kRelu, "relu2", {add});
  const ValueId gap = b.Op(OpType::kGlobalAveragePool, "gap", {r2});
  const ValueId flat = b.Op(OpType::kFlatten, "flat", {gap}, Attrs({{"axis", int64_t{1}}}));
  const ValueId y = b.Op(OpType::kGemm, "fc", {flat, b.Const("wf", {6, 5}), b.Const("bf", {5})});
  b.Output(y);
  return b.Take();
}

struct Quantized {
  CompiledModel float_model, int8;
};

Quantized QuantizeForTest(const Graph& g, QuantizeConfig config = {}, CompileOptions options = {}) {
  options.verify_each_pass = true;
  Quantized q;
  auto f = CompileForCalibration(g, options, config);
  EXPECT_TRUE(f.ok()) << f.status().ToString();
  q.float_model = std::move(f).value();
  VectorSource calib = RandomSamples(q.float_model.graph, 16, 100);
  CalibrationRun run;
  run.source = &calib;
  for (size_t i = 0; i < calib.size(); ++i) run.samples.push_back(i);
  run.progress = false;
  auto stats = CollectStatistics(q.float_model.graph, run, "k");
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  auto m = CompileQuantized(g, options, config,
                            std::make_shared<calib::CalibrationStats>(std::move(stats).value()));
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  q.int8 = std::move(m).value();
  return q;
}

int Count(const Graph& g, OpType op) {
  int n = 0;
  for (const Node& node : g.nodes()) n += node.op == op;
  return n;
}

// Largest output difference relative to the float output's range, over fresh inputs (or, with
// seed_base 100, the calibration samples: no value outside its calibrated range).
double RelativeError(const Graph& f, const Graph& q, int samples, uint32_t seed_base = 900) {
  double worst = 0;
  for (int s = 0; s < samples; ++s) {
    const auto in = testing::RandomInputs(f, seed_base + static_cast<uint32_t>(s));
    const auto a = testing::RunGraph(f, in);
    const auto b = testing::RunGraph(q, in);
    if (a.empty() || b.empty()) return 1e9;
    float lo = 0, hi = 0;
    for (int64_t i = 0; i < a[0].num_elements(); ++i) {
      lo = std::min(lo, a[0].data<float>()[i]);
      hi = std::max(hi, a[0].data<float>()[i]);
    }
    for (int64_t i = 0; i < a[0].num_elements(); ++i) {
      worst = std::max(
          worst, std::fabs(double(a[0].data<float>()[i]) - b[0].data<float>()[i]) / (hi - lo));
    }
  }
  return worst;
}

TEST(QuantizePasses, SmallCnnBecomesIntegerAndStaysClose) {
  const Graph g = SmallCnn();
  for (ActMode act : {ActMode::kAsymU8, ActMode::kSymI8}) {
    QuantizeConfig config;
    config.act = act;
    Quantized q = QuantizeForTest(g, config);
    const Graph& ig = q.int8.graph;
    EXPECT_EQ(Count(ig, OpType::kQConv), 2);
    EXPECT_EQ(Count(ig, OpType::kQGemm), 1);
    EXPECT_EQ(Count(ig, OpType::kQGlobalAveragePool), 1);
    EXPECT_EQ(Count(ig, OpType::kFusedConv) + Count(ig, OpType::kFusedGemm), 0);
    // The residual and the Relu after the Add fold into the second QConv.
    for (const Node& n : ig.nodes()) {
      if (n.op == OpType::kQConv && n.name == "conv2") {
        ASSERT_GT(n.inputs.size(), 3u);
        EXPECT_NE(n.inputs[3], kNoValue);
      }
    }
    // The classifier keeps its exact int32 accumulator: the graph output is its dequantization.
    EXPECT_EQ(ig.value(ig.outputs()[0]).dtype, DType::kF32);
    EXPECT_LT(RelativeError(q.float_model.graph, ig, 4), 0.05);
  }
}

TEST(QuantizePasses, KeepFloatKeepsTheNamedNode) {
  QuantizeConfig config;
  config.keep_float = {"conv2"};
  Quantized q = QuantizeForTest(SmallCnn(), config);
  EXPECT_EQ(Count(q.int8.graph, OpType::kQConv), 1);
  EXPECT_EQ(Count(q.int8.graph, OpType::kFusedConv), 1);
  EXPECT_LT(RelativeError(q.float_model.graph, q.int8.graph, 2), 0.05);
}

// The dtype of the integer value a node named `name` reads as input `slot`.
DType InputType(const Graph& g, const std::string& name, size_t slot) {
  for (const Node& n : g.nodes()) {
    if (n.name == name && n.inputs.size() > slot && n.inputs[slot] != kNoValue) {
      return g.value(n.inputs[slot]).dtype;
    }
  }
  return DType::kUndefined;
}

// Pools, broadcast Mul, Add, Concat and a lookup chain: no weights, so the activations' rounding
// is the only error, and int16 must shrink it by far more than 10x.
Graph WeightlessNet() {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 4, 8, 8});
  const ValueId r = b.Op(OpType::kRelu, "relu", {x});
  const ValueId p = b.Op(OpType::kAveragePool, "pool", {r},
                         Attrs({{"kernel_shape", std::vector<int64_t>{3, 3}},
                                {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ValueId g = b.Op(OpType::kGlobalAveragePool, "gap", {p});
  const ValueId m = b.Op(OpType::kMul, "mul", {p, g});
  const ValueId a = b.Op(OpType::kAdd, "add", {m, x});
  const ValueId s = b.Op(OpType::kSigmoid, "sig", {a});
  const ValueId c = b.Op(OpType::kConcat, "cat", {s, p}, Attrs({{"axis", int64_t{1}}}));
  b.Output(c);
  return b.Take();
}

TEST(QuantizePasses, Int16EverywhereIsInteger) {
  const Graph g = SmallCnn();
  QuantizeConfig c8, c16;
  c16.act = ActMode::kSymI16;
  Quantized q8 = QuantizeForTest(g, c8), q16 = QuantizeForTest(g, c16);
  const Graph& ig = q16.int8.graph;
  EXPECT_EQ(Count(ig, OpType::kQConv), 2);
  EXPECT_EQ(Count(ig, OpType::kQGemm), 1);
  EXPECT_EQ(Count(ig, OpType::kFusedConv) + Count(ig, OpType::kFusedGemm), 0);
  for (const Node& n : ig.nodes()) {
    if (n.op != OpType::kQConv && n.op != OpType::kQGemm) continue;
    EXPECT_EQ(ig.value(n.inputs[0]).dtype, DType::kI16) << n.name;
    EXPECT_EQ(ig.value(n.inputs[0]).quant.zero_points[0], 0) << n.name;
    EXPECT_EQ(ig.value(n.inputs[2]).dtype, DType::kI64) << n.name;  // the int64 bias
  }
  // Here the int8 weights' rounding dominates both errors.
  EXPECT_LT(RelativeError(q16.float_model.graph, ig, 4), 0.05);

  const Graph w = WeightlessNet();
  Quantized w8 = QuantizeForTest(w, c8), w16 = QuantizeForTest(w, c16);
  for (OpType op : {OpType::kQAdd, OpType::kQMul, OpType::kQAveragePool,
                    OpType::kQGlobalAveragePool, OpType::kQLookup}) {
    EXPECT_GE(Count(w16.int8.graph, op), 1) << OpTypeName(op);
  }
  for (OpType op : {OpType::kAdd, OpType::kMul, OpType::kAveragePool, OpType::kSigmoid}) {
    EXPECT_EQ(Count(w16.int8.graph, op), 0) << OpTypeName(op);
  }
  // On calibration samples: fresh ones exceed the calibrated ranges, and that clipping is the
  // same at 8 and 16 bits.
  const double e8 = RelativeError(w8.float_model.graph, w8.int8.graph, 4, 100);
  const double e16 = RelativeError(w16.float_model.graph, w16.int8.graph, 4, 100);
  EXPECT_LT(e16 * 30, e8) << "int8 " << e8 << " int16 " << e16;
}

TEST(QuantizePasses, Int16NodeWidensWhatItReadsAndWrites) {
  QuantizeConfig config;
  config.int16_nodes = {"conv2"};
  Quantized q = QuantizeForTest(SmallCnn(), config);
  const Graph& ig = q.int8.graph;
  EXPECT_EQ(Count(ig, OpType::kQConv), 2);
  EXPECT_EQ(InputType(ig, "conv1", 0), DType::kU8);
  EXPECT_EQ(InputType(ig, "conv1", 1), DType::kI8);
  EXPECT_EQ(InputType(ig, "conv2", 0), DType::kI16);  // conv1's output: conv2 reads it
  EXPECT_EQ(InputType(ig, "conv2", 1), DType::kI16);  // its weights
  EXPECT_EQ(InputType(ig, "conv2", 2), DType::kI64);  // its bias
  // conv1 writes the i16 value that conv2 reads (and its residual, the same tensor).
  for (const Node& n : ig.nodes()) {
    if (n.name == "conv1" && n.op == OpType::kQConv) {
      EXPECT_EQ(ig.value(n.outputs[0]).dtype, DType::kI16);
    }
  }
  EXPECT_LT(RelativeError(q.float_model.graph, ig, 2), 0.05);
}

// The conv's int16 output reaches the classifier through MaxPool (a move: same type), so the
// classifier reads int16 and cannot keep an int32 accumulator: it gets a quantized output.
TEST(QuantizePasses, Int16ThroughAMoveReachesTheGemm) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 3, 8, 8});
  const ValueId c =
      b.Op(OpType::kConv, "conv", {x, b.Const("w", {4, 3, 3, 3}), b.Const("cb", {4})});
  const ValueId r = b.Op(OpType::kRelu, "relu", {c});
  const ValueId p = b.Op(OpType::kMaxPool, "pool", {r},
                         Attrs({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                {"strides", std::vector<int64_t>{2, 2}}}));
  const ValueId f = b.Op(OpType::kFlatten, "flat", {p}, Attrs({{"axis", int64_t{1}}}));
  const ValueId y = b.Op(OpType::kGemm, "fc", {f, b.Const("wf", {36, 5}), b.Const("bf", {5})});
  b.Output(y);
  QuantizeConfig config;
  config.int16_nodes = {"conv"};
  Quantized q = QuantizeForTest(b.Take(), config);
  const Graph& ig = q.int8.graph;
  EXPECT_EQ(Count(ig, OpType::kQGemm), 1);
  EXPECT_EQ(Count(ig, OpType::kFusedGemm), 0);
  EXPECT_EQ(InputType(ig, "fc", 0), DType::kI16);
  EXPECT_LT(RelativeError(q.float_model.graph, ig, 2), 0.05);
}

TEST(QuantizePasses, Int16DepthwiseSelectsDepthwiseConvs) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 4, 8, 8});
  const ValueId d =
      b.Op(OpType::kConv, "dw", {x, b.Const("wd", {4, 1, 3, 3}), b.Const("bd", {4})},
           Attrs({{"group", int64_t{4}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ValueId r = b.Op(OpType::kRelu, "relu", {d});
  const ValueId p = b.Op(OpType::kConv, "pw", {r, b.Const("wp", {6, 4, 1, 1}), b.Const("bp", {6})});
  b.Output(p);
  const Graph g = b.Take();
  QuantizeConfig config;
  config.int16_nodes = {std::string(kInt16Depthwise)};
  Quantized q = QuantizeForTest(g, config);
  EXPECT_EQ(Count(q.int8.graph, OpType::kQConv), 2);
  EXPECT_EQ(InputType(q.int8.graph, "dw", 1), DType::kI16);
  EXPECT_EQ(InputType(q.int8.graph, "pw", 1), DType::kI8);
  EXPECT_EQ(InputType(q.int8.graph, "pw", 0), DType::kI16);  // what dw writes
  EXPECT_LT(RelativeError(q.float_model.graph, q.int8.graph, 2), 0.05);
}

TEST(QuantizePasses, ElementwiseChainBecomesOneLookup) {
  // conv -> hardswish written out (x * clip(x + 3, 0, 6) / 6) -> sigmoid -> conv.
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 2, 6, 6});
  const ValueId c1 =
      b.Op(OpType::kConv, "conv1", {x, b.Const("w1", {4, 2, 3, 3}), b.Const("b1", {4})});
  const ValueId a3 = b.Op(OpType::kAdd, "add3", {c1, b.Const("three", {}, {3.f})});
  const ValueId cl =
      b.Op(OpType::kClip, "clip", {a3, b.Const("lo", {}, {0.f}), b.Const("hi", {}, {6.f})});
  const ValueId d6 = b.Op(OpType::kDiv, "div6", {cl, b.Const("six", {}, {6.f})});
  const ValueId hs = b.Op(OpType::kMul, "mul", {c1, d6});
  const ValueId sg = b.Op(OpType::kSigmoid, "sig", {hs});
  const ValueId c2 =
      b.Op(OpType::kConv, "conv2", {sg, b.Const("w2", {3, 4, 1, 1}), b.Const("b2", {3})});
  b.Output(c2);
  const Graph g = b.Take();
  for (ActMode act : {ActMode::kAsymU8, ActMode::kSymI16}) {
    QuantizeConfig config;
    config.act = act;
    Quantized q = QuantizeForTest(g, config);
    EXPECT_EQ(Count(q.int8.graph, OpType::kQLookup), 1);
    EXPECT_EQ(Count(q.int8.graph, OpType::kQConv), 2);
    for (OpType op : {OpType::kAdd, OpType::kClip, OpType::kDiv, OpType::kMul, OpType::kSigmoid}) {
      EXPECT_EQ(Count(q.int8.graph, op), 0) << OpTypeName(op);
    }
    for (const Node& n : q.int8.graph.nodes()) {
      if (n.op != OpType::kQLookup) continue;
      // int16: 513 interpolation knots.
      EXPECT_EQ(q.int8.graph.value(n.inputs[1]).num_elements(),
                act == ActMode::kSymI16 ? 513 : 256);
    }
    EXPECT_LT(RelativeError(q.float_model.graph, q.int8.graph, 3), 0.05);
  }
}

TEST(QuantizePasses, ConcatSharesParametersAndMaxPoolMovesCodes) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 3, 8, 8});
  const ValueId c1 = b.Op(OpType::kConv, "c1", {x, b.Const("w1", {4, 3, 1, 1})});
  const ValueId r1 = b.Op(OpType::kRelu, "r1", {c1});
  const ValueId c2 = b.Op(OpType::kConv, "c2", {x, b.Const("w2", {5, 3, 3, 3})},
                          Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  const ValueId r2 = b.Op(OpType::kRelu, "r2", {c2});
  const ValueId cat = b.Op(OpType::kConcat, "cat", {r1, r2}, Attrs({{"axis", int64_t{1}}}));
  const ValueId mp = b.Op(OpType::kMaxPool, "mp", {cat},
                          Attrs({{"kernel_shape", std::vector<int64_t>{2, 2}},
                                 {"strides", std::vector<int64_t>{2, 2}}}));
  const ValueId c3 = b.Op(OpType::kConv, "c3", {mp, b.Const("w3", {2, 9, 1, 1})});
  b.Output(c3);
  const Graph g = b.Take();
  Quantized q = QuantizeForTest(g);
  EXPECT_EQ(Count(q.int8.graph, OpType::kConcat), 1);  // plain copy: shared parameters
  EXPECT_EQ(Count(q.int8.graph, OpType::kQConcat), 0);
  EXPECT_EQ(Count(q.int8.graph, OpType::kMaxPool), 1);
  EXPECT_EQ(q.int8.graph.value(q.int8.graph.node(0).outputs[0]).dtype == DType::kU8 ||
                q.int8.graph.node(0).op == OpType::kQuantizeLinear,
            true);
  // The 1x1 branch shares the 3x3 branch's coarser range: a little more error here.
  EXPECT_LT(RelativeError(q.float_model.graph, q.int8.graph, 3), 0.1);
}

TEST(LowerQdq, HandWrittenQdqConvBecomesQConv) {
  // x(f32) -> Q -> DQ -> FusedConv(relu) with DQ(int8 W) and float bias -> Q -> DQ -> out.
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 2, 3, 3});
  auto scalar = [&](const char* name, float v) { return b.Const(name, {}, {v}); };
  auto zp_u8 = [&](const char* name, uint8_t v) {
    return b.graph().AddConstant(name, DType::kU8, {}, ConstantBytes::Copy(&v, 1));
  };
  const ValueId xq =
      b.Op(OpType::kQuantizeLinear, "xq", {x, scalar("xs", 0.05f), zp_u8("xz", 128)});
  const ValueId xd =
      b.Op(OpType::kDequantizeLinear, "xd", {xq, scalar("xs2", 0.05f), zp_u8("xz2", 128)});
  const std::vector<int8_t> wcodes = {1, -2, 3, -4, 5, -6, 7, -8};
  const ValueId wq = b.graph().AddConstant("wq", DType::kI8, {4, 2, 1, 1},
                                           ConstantBytes::Copy(wcodes.data(), wcodes.size()));
  const int8_t wz = 0;
  const ValueId wd =
      b.Op(OpType::kDequantizeLinear, "wd",
           {wq, scalar("ws", 0.1f),
            b.graph().AddConstant("wz", DType::kI8, {}, ConstantBytes::Copy(&wz, 1))});
  Attributes act;
  act.Set("activation", std::string("relu"));
  const ValueId y = b.Op(OpType::kFusedConv, "conv",
                         {xd, wd, b.Const("bias", {4}, {0.1f, 0.2f, -0.3f, 0.f})}, act);
  const ValueId yq = b.Op(OpType::kQuantizeLinear, "yq", {y, scalar("ys", 0.02f), zp_u8("yz", 0)});
  const ValueId yd =
      b.Op(OpType::kDequantizeLinear, "yd", {yq, scalar("ys2", 0.02f), zp_u8("yz2", 0)});
  b.Output(yd);
  Graph g = b.Take();
  const auto in = testing::RandomInputs(g, 3);
  const auto before = testing::RunGraph(g, in);
  const std::string ir = testing::RunPassForTest(MakeLowerQdqPass(), g);
  EXPECT_EQ(
      ir,
      "graph main(%x: f32[1,2,3,3]) -> (%yd: f32[1,4,3,3])\n"
      "  const %xs: f32[] (4 bytes)\n"
      "  const %xz: u8[] (1 bytes)\n"
      "  const %wq: i8[4,2,1,1] quant(scale=0.100000,zp=0) (8 bytes)\n"
      "  const %ys2: f32[] (4 bytes)\n"
      "  const %yz2: u8[] (1 bytes)\n"
      "  const %conv.bias: i32[4] (16 bytes)\n"
      "  const %conv.requant: i32[4,2] (32 bytes)\n"
      "  %xq = QuantizeLinear(%x, %xs, %xz) : u8[1,2,3,3] quant(scale=0.050000,zp=128)  # xq\n"
      "  %yq = QConv(%xq, %wq, %conv.bias, _, %conv.requant) {out_dtype=\"u8\", qmax=255, "
      "qmin=0} : u8[1,4,3,3] quant(scale=0.020000,zp=0)  # conv\n"
      "  %yd = DequantizeLinear(%yq, %ys2, %yz2) : f32[1,4,3,3]  # yd\n");
  const auto after = testing::RunGraph(g, in);
  ASSERT_EQ(after.size(), 1u);
  // Within one output step of the fake-quantized float graph.
  for (int64_t i = 0; i < before[0].num_elements(); ++i) {
    EXPECT_NEAR(after[0].data<float>()[i], before[0].data<float>()[i], 0.02f + 1e-6f) << i;
  }
}

// A float conv between float tensors whose weights come quantized (DequantizeLinear of int8
// codes: what the quantize pass writes for a layer whose pattern does not lower, e.g. one in a
// float region): the DequantizeLinear is folded, so the conv reads an f32 constant (which
// pack-weights lays out for the fast kernels) instead of dequantizing per run on the reference
// kernel. The values are the dequantized codes; the output does not change.
TEST(LowerQdq, DequantizedWeightsOfAFloatConvFold) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 2, 3, 3});
  const std::vector<int8_t> wcodes = {1, -2, 3, -4, 5, -6, 7, -128};
  const ValueId wq = b.graph().AddConstant("wq", DType::kI8, {4, 2, 1, 1},
                                           ConstantBytes::Copy(wcodes.data(), wcodes.size()));
  const int8_t wz = 0;
  const ValueId wd =
      b.Op(OpType::kDequantizeLinear, "wd",
           {wq, b.Const("ws", {}, {0.1f}),
            b.graph().AddConstant("wz", DType::kI8, {}, ConstantBytes::Copy(&wz, 1))});
  const ValueId y =
      b.Op(OpType::kFusedConv, "conv", {x, wd, b.Const("bias", {4}, {0.1f, 0.2f, -0.3f, 0.f})});
  b.Output(y);
  Graph g = b.Take();
  const auto in = testing::RandomInputs(g, 5);
  const auto before = testing::RunGraph(g, in);
  const std::string ir = testing::RunPassForTest(MakeLowerQdqPass(), g);
  EXPECT_EQ(ir,
            "graph main(%x: f32[1,2,3,3]) -> (%conv: f32[1,4,3,3])\n"
            "  const %wd: f32[4,2,1,1] (32 bytes)\n"
            "  const %bias: f32[4] (16 bytes)\n"
            "  %conv = FusedConv(%x, %wd, %bias) : f32[1,4,3,3]  # conv\n");
  ASSERT_EQ(g.num_nodes(), 1u);
  const float* w = g.value(g.node(0).inputs[1]).constant->as<float>();
  for (size_t i = 0; i < wcodes.size(); ++i) EXPECT_EQ(w[i], wcodes[i] * 0.1f) << i;
  const auto after = testing::RunGraph(g, in);
  ASSERT_EQ(after.size(), 1u);
  EXPECT_EQ(after[0].bytes, before[0].bytes);
}

TEST(Equalize, PreservesTheFunctionAndBalancesRanges) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 3, 6, 6});
  // Output channels of conv1 with very different ranges.
  std::vector<float> w1(4 * 3 * 9);
  std::mt19937 rng(2);
  std::uniform_real_distribution<float> d(-1, 1);
  for (size_t i = 0; i < w1.size(); ++i) w1[i] = d(rng) * (i < 27 ? 20.f : 0.05f);
  const ValueId c1 =
      b.Op(OpType::kConv, "conv1", {x, b.Const("w1", {4, 3, 3, 3}, w1), b.Const("b1", {4})});
  const ValueId r1 = b.Op(OpType::kRelu, "relu1", {c1});
  const ValueId dw =
      b.Op(OpType::kConv, "dw", {r1, b.Const("wd", {4, 1, 3, 3})},
           Attrs({{"group", int64_t{4}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  b.Output(dw);
  Graph g = b.Take();
  CompileOptions plain;
  CompileOptions eq;
  eq.equalize = true;
  auto f = CompileGraph(g, plain);
  auto e = CompileGraph(g, eq);
  ASSERT_TRUE(f.ok() && e.ok());
  bool ran = false;
  for (const auto& r : e->reports)
    ran |= r.name == "equalize" && r.ran && r.counters.count("pairs");
  EXPECT_TRUE(ran);
  const auto in = testing::RandomInputs(g, 4);
  testing::ExpectClose(testing::RunGraph(f->graph, in), testing::RunGraph(e->graph, in), 1e-5f);
}

TEST(QuantizeDriver, ShardedStatisticsMergeToOnePass) {
  const Graph g = SmallCnn();
  QuantizeConfig config;
  auto f = CompileForCalibration(g, {}, config);
  ASSERT_TRUE(f.ok());
  VectorSource calib = RandomSamples(f->graph, 9, 40);
  std::vector<size_t> all;
  for (size_t i = 0; i < calib.size(); ++i) all.push_back(i);
  CalibrationRun run;
  run.source = &calib;
  run.progress = false;
  run.samples = all;
  auto one = CollectStatistics(f->graph, run, "k");
  ASSERT_TRUE(one.ok());
  calib::CalibrationStats merged;
  for (int i = 0; i < 4; ++i) {
    run.samples = ShardOf(all, i, 4);
    auto part = CollectStatistics(f->graph, run, "k");
    ASSERT_TRUE(part.ok());
    if (i == 0) {
      merged = std::move(part).value();
    } else {
      ASSERT_TRUE(merged.Merge(*part).ok());
    }
  }
  EXPECT_EQ(calib::EncodeStats(merged), calib::EncodeStats(*one));
  EXPECT_FALSE(ParseShard("4/4").ok());
  EXPECT_FALSE(ParseShard("a/2").ok());
  EXPECT_EQ(ParseShard("1/3")->second, 3);
}

// Statistics of the float graph `f` over 16 random samples.
std::shared_ptr<calib::CalibrationStats> Calibrate(const Graph& f) {
  VectorSource calib = RandomSamples(f, 16, 100);
  CalibrationRun run;
  run.source = &calib;
  for (size_t i = 0; i < calib.size(); ++i) run.samples.push_back(i);
  run.progress = false;
  auto stats = CollectStatistics(f, run, "k");
  EXPECT_TRUE(stats.ok()) << stats.status().ToString();
  if (!stats.ok()) return nullptr;
  return std::make_shared<calib::CalibrationStats>(std::move(stats).value());
}

// A budget step keeps a tensor in float: for every tensor of the report, the nodes it names
// leave no quantized copy of that tensor in the int8 graph (no "<name>.q" value: neither an
// integer op's output nor a QuantizeLinear in front of an integer reader).
TEST(AccuracyBudget, KeptTensorIsNotQuantizedAgain) {
  const Graph g = SmallCnn();
  CompileOptions options;
  QuantizeConfig config;
  auto f = CompileForCalibration(g, options, config);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto shared = Calibrate(f->graph);
  ASSERT_TRUE(shared);
  auto int8 = CompileQuantized(g, options, config, shared);
  ASSERT_TRUE(int8.ok()) << int8.status().ToString();
  VectorSource held = RandomSamples(f->graph, 2, 500);
  auto report = MeasureAccuracy(f->graph, int8->graph, held, {0, 1}, 1, false);
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  int checked = 0;
  for (const TensorAccuracy& t : report->tensors) {
    if (t.model_output || t.sources.empty()) continue;
    QuantizeConfig kept = config;
    for (const std::string& node : NodesKeepingFloat(t)) kept.keep_float.insert(node);
    auto m = CompileQuantized(g, options, kept, shared);
    ASSERT_TRUE(m.ok()) << m.status().ToString();
    EXPECT_FALSE(m->graph.FindValue(t.name + ".q").has_value()) << t.name << " is still quantized";
    ++checked;
  }
  // conv1's Relu output (read by conv2 twice: input and residual), conv2's output, the pool's.
  EXPECT_GE(checked, 2);
}

// The budget's steps make layers int16 first (activations and weights), float only with
// --budget-float; a budget 10 dB above the int8 model's output SQNR is met.
TEST(AccuracyBudget, Int16StepsFirst) {
  const Graph g = SmallCnn();
  CompileOptions options;
  QuantizeConfig config;
  auto f = CompileForCalibration(g, options, config);
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  auto shared = Calibrate(f->graph);
  ASSERT_TRUE(shared);
  VectorSource held = RandomSamples(f->graph, 3, 500);
  auto int8 = CompileQuantized(g, options, config, shared);
  ASSERT_TRUE(int8.ok()) << int8.status().ToString();
  auto report = MeasureAccuracy(f->graph, int8->graph, held, {0, 1, 2}, 1, false);
  ASSERT_TRUE(report.ok());
  double out_sqnr = 0;
  for (const auto& t : report->tensors) {
    if (t.model_output) out_sqnr = t.sqnr_db;
  }
  for (bool int16_first : {true, false}) {
    BudgetContext ctx;
    ctx.imported = &g;
    ctx.options = options;
    ctx.config = config;
    ctx.stats = shared;
    ctx.float_graph = &f->graph;
    ctx.source = &held;
    ctx.held_back = {0, 1, 2};
    ctx.progress = false;
    ctx.int16_first = int16_first;
    auto start = CompileQuantized(g, options, config, shared);
    ASSERT_TRUE(start.ok());
    auto r =
        RunAccuracyBudget(ctx, BudgetSpec{BudgetSpec::kSqnr, out_sqnr + 10}, std::move(*start));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_FALSE(r->steps.empty());
    EXPECT_EQ(r->steps[0].int16, int16_first);
    EXPECT_TRUE(r->met) << "int16_first " << int16_first << ": " << r->final_metric << " dB";
    if (!int16_first) {
      EXPECT_TRUE(r->int16.empty());
    }
  }
}

}  // namespace
}  // namespace kiln::quant
