// Every OpenCL kernel family against the reference kernels on random shapes (odd sizes,
// strides, pads, groups, dilations, broadcasting), fp32 and fp16 storage; every tile-shape
// variant and reduction split of the tiled convolution through the tuner's cache. ctest -L opencl.
#include <gtest/gtest.h>

#include <random>

#include "backends/opencl/gpu_options.h"
#include "ir/activation.h"
#include "backends/opencl/kernels/cl_program.h"
#include "backends/opencl/kernels/conv_gemm.h"
#include "backends/opencl/opencl_device.h"
#include "serializer/kernel_binaries.h"
#include "tests/graph_builder.h"
#include "tests/opencl/opencl_test_util.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::ExpectClose;
using testing::GraphBuilder;
using testing::RandomInputs;
using testing::RunGraph;
using testing::RunOnGpu;

#define REQUIRE_DEVICE() \
  if (!testing::HaveOpenClDevice()) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)"

// Runs the graph on the reference executor and on the GPU (fp32 and fp16), expecting every
// node on the GPU and the outputs close.
void CheckOnGpu(const Graph& g, float tol32 = 2e-5f, float tol16 = 2e-2f, GpuOptions gpu = {}) {
  const auto inputs = RandomInputs(g);
  const auto want = RunGraph(g, inputs);
  gpu.precision = GpuPrecision::kFp32;
  auto got = RunOnGpu(g, inputs, gpu);
  testing::ExpectAllOnGpu(got);
  ExpectClose(got.outputs, want, tol32);
  gpu.precision = GpuPrecision::kFp16;
  auto half = RunOnGpu(g, inputs, gpu);
  ExpectClose(half.outputs, want, tol16);
}

const char* kActs[] = {"",           "relu", "clip", "leaky_relu", "sigmoid", "hard_sigmoid",
                       "hard_swish", "tanh", "silu"};

Attributes ConvAttrs(std::mt19937& rng, int k, int group, bool fused) {
  std::uniform_int_distribution<int> s(1, 2), p(0, 2), d(1, 2);
  Attributes a = Attrs({{"strides", std::vector<int64_t>{s(rng), s(rng)}},
                        {"pads", std::vector<int64_t>{p(rng), p(rng), p(rng), p(rng)}},
                        {"dilations", std::vector<int64_t>{k > 1 ? d(rng) : 1, k > 1 ? d(rng) : 1}},
                        {"group", int64_t{group}}});
  if (fused) {
    const char* act = kActs[std::uniform_int_distribution<size_t>(0, 8)(rng)];
    if (*act) {
      a.Set("activation", std::string(act));
      a.Set("activation_alpha", 0.1f);
      a.Set("activation_beta", 0.6f);
    }
  }
  return a;
}

TEST(OpenClKernels, ConvolutionsOnRandomShapes) {
  REQUIRE_DEVICE();
  std::mt19937 rng(91);
  for (int iter = 0; iter < 12; ++iter) {
    std::uniform_int_distribution<int> dim(5, 17), ch(1, 9), ks(1, 3);
    const int kind = iter % 3;  // 0: ungrouped, 1: depthwise, 2: grouped
    const int group = kind == 0 ? 1 : (kind == 1 ? ch(rng) : 2);
    const int c = kind == 1 ? group : group * ch(rng);
    const int m = kind == 1 ? group * (1 + iter % 2) : group * ch(rng) * (kind == 0 ? 7 : 1);
    const int k = 2 * ks(rng) - 1;
    const int n = 1 + iter % 2;
    GraphBuilder b;
    const ValueId x = b.Input("x", {n, c, dim(rng), dim(rng)});
    const ValueId w = b.Const("w", {m, c / group, k, k});
    const ValueId bias = b.Const("b", {m});
    const bool fused = iter % 4 != 3;
    ValueId y = b.Op(fused ? OpType::kFusedConv : OpType::kConv, "conv", {x, w, bias},
                     ConvAttrs(rng, k, group, fused));
    if (fused && iter % 2 == 0) {  // residual of the output's shape
      const Shape ys = b.graph().value(y).shape;
      const ValueId r = b.Input("r", ys);
      Graph& g = b.graph();
      Node& node = g.node(g.value(y).producer);
      node.inputs.push_back(r);
    }
    b.Output(y);
    SCOPED_TRACE("iteration " + std::to_string(iter) + " kind " + std::to_string(kind));
    CheckOnGpu(b.graph());
  }
}

// Every tile shape and some reduction splits, chosen through the tuner's cache (here the
// tuning entries of embedded binaries, which need no program).
TEST(OpenClKernels, EveryConvGemmVariantAndSplit) {
  REQUIRE_DEVICE();
  auto dev = opencl::SelectDevice("", 0);
  ASSERT_TRUE(dev.ok());
  for (const bool one : {false, true}) {
    GraphBuilder b;
    const int c = 37, h = 9, w = 11, m = 70;
    const ValueId x = b.Input("x", {1, c, h, w});
    const ValueId wt = b.Const("w", {m, c, one ? 1 : 3, one ? 1 : 3});
    const ValueId bias = b.Const("b", {m});
    Attributes a =
        Attrs({{"pads", std::vector<int64_t>{one ? 0 : 1, one ? 0 : 1, one ? 0 : 1, one ? 0 : 1}},
               {"activation", std::string("relu")}});
    b.Output(b.Op(OpType::kFusedConv, "conv", {x, wt, bias}, a));
    opencl::ConvGemmShape s;
    s.c = c;
    s.h = h;
    s.w = w;
    s.m = m;
    s.mpad = 128;
    s.k = c * (one ? 1 : 9);
    s.oh = h;
    s.ow = w;
    s.ph = s.pw = one ? 0 : 1;
    s.is_1x1 = one;
    const auto variants = opencl::ConvGemmVariants();
    for (size_t v = 0; v < variants.size(); ++v) {
      if (variants[v].is_1x1 != one) continue;
      for (int splits : {1, 3}) {
        auto binaries = std::make_shared<KernelBinaries>();
        binaries->device = dev->name;
        binaries->driver = dev->driver;
        binaries->tuning.emplace_back(
            "fp32 " + s.Key(), opencl::ConvGemmChoice{static_cast<int>(v), splits}.ToString());
        binaries->tuning.emplace_back(
            "fp16 " + s.Key(), opencl::ConvGemmChoice{static_cast<int>(v), splits}.ToString());
        GpuOptions gpu;
        gpu.binaries = binaries;
        SCOPED_TRACE(std::string(variants[v].name) + " splits " + std::to_string(splits));
        CheckOnGpu(b.graph(), 2e-5f, 2e-2f, gpu);
      }
    }
  }
}

TEST(OpenClKernels, Pools) {
  REQUIRE_DEVICE();
  std::mt19937 rng(5);
  for (int iter = 0; iter < 6; ++iter) {
    std::uniform_int_distribution<int> dim(4, 15), kk(1, 3), s(1, 2), p(0, 1);
    GraphBuilder b;
    const ValueId x = b.Input("x", {1 + iter % 2, 3, dim(rng), dim(rng)});
    const int k = kk(rng);
    const int pad = std::min(p(rng), k - 1);
    Attributes a = Attrs({{"kernel_shape", std::vector<int64_t>{k, k + 1}},
                          {"strides", std::vector<int64_t>{s(rng), s(rng)}},
                          {"pads", std::vector<int64_t>{pad, pad, pad, pad}},
                          {"ceil_mode", int64_t{iter % 2}},
                          {"count_include_pad", int64_t{iter / 3}}});
    b.Output(b.Op(iter % 2 ? OpType::kMaxPool : OpType::kAveragePool, "pool", {x}, a));
    b.Output(b.Op(iter % 2 ? OpType::kGlobalMaxPool : OpType::kGlobalAveragePool, "gp", {x}));
    b.Output(b.Op(OpType::kReduceMean, "rm", {x, b.ConstI64("axes", {1}, {iter % 2 ? 3 : 1})},
                  Attrs({{"keepdims", int64_t{1}}})));
    SCOPED_TRACE("iteration " + std::to_string(iter));
    CheckOnGpu(b.graph());
  }
}

TEST(OpenClKernels, ElementwiseWithBroadcasting) {
  REQUIRE_DEVICE();
  const std::vector<std::pair<Shape, Shape>> shapes = {{{2, 3, 5, 7}, {2, 3, 5, 7}},
                                                       {{2, 3, 5, 7}, {1, 3, 1, 1}},
                                                       {{3, 1, 7}, {4, 1}},
                                                       {{1, 6, 4, 4}, {}},
                                                       {{5}, {2, 3, 5}}};
  const OpType ops[] = {OpType::kAdd, OpType::kSub, OpType::kMul,
                        OpType::kDiv, OpType::kMax, OpType::kMin};
  for (size_t i = 0; i < shapes.size(); ++i) {
    GraphBuilder b;
    const ValueId x = b.Input("x", shapes[i].first);
    const ValueId y = i % 2 ? b.Const("y", shapes[i].second) : b.Input("y", shapes[i].second);
    for (OpType op : ops) b.Output(b.Op(op, std::string(OpTypeName(op)), {x, y}));
    SCOPED_TRACE("shapes " + std::to_string(i));
    CheckOnGpu(b.graph(), 2e-5f, 3e-2f);
  }
  GraphBuilder b;
  const ValueId x = b.Input("x", {2, 4, 3, 5});
  for (OpType op : {OpType::kRelu, OpType::kSigmoid, OpType::kTanh, OpType::kHardSwish,
                    OpType::kAbs, OpType::kNeg, OpType::kExp}) {
    b.Output(b.Op(op, std::string(OpTypeName(op)), {x}));
  }
  b.Output(b.Op(OpType::kLeakyRelu, "leaky", {x}, Attrs({{"alpha", 0.2f}})));
  b.Output(b.Op(OpType::kHardSigmoid, "hsig", {x}, Attrs({{"alpha", 0.3f}, {"beta", 0.4f}})));
  b.Output(b.Op(OpType::kClip, "clip", {x, b.Const("lo", {}, {-0.5f}), b.Const("hi", {}, {0.7f})}));
  b.Output(b.Op(OpType::kSqrt, "sqrt", {b.Op(OpType::kAbs, "abs2", {x})}));
  b.Output(b.Op(OpType::kPow, "pow", {b.Op(OpType::kAbs, "abs3", {x}), b.Const("e", {}, {2.f})}));
  b.Output(b.Op(OpType::kBatchNormalization, "bn",
                {x, b.Const("s", {4}), b.Const("t", {4}), b.Const("mu", {4}),
                 b.Const("var", {4}, {0.5f, 1.f, 2.f, 0.1f})}));
  CheckOnGpu(b.graph(), 2e-5f, 3e-2f);
}

TEST(OpenClKernels, GemmMatMulSoftmax) {
  REQUIRE_DEVICE();
  for (int trans_b = 0; trans_b < 2; ++trans_b) {
    GraphBuilder b;
    const ValueId a = b.Input("a", {3, 2, 5, 7});
    const ValueId w = b.Const("w", trans_b ? Shape{19, 70} : Shape{70, 19});
    const ValueId c = b.Const("c", trans_b ? Shape{19} : Shape{3, 1});
    b.Output(b.Op(OpType::kFusedGemm, "fc", {a, w, c},
                  Attrs({{"transB", int64_t{trans_b}},
                         {"alpha", 0.5f},
                         {"beta", 2.f},
                         {"activation", std::string("relu")}})));
    CheckOnGpu(b.graph(), 2e-5f, 2e-2f);
  }
  GraphBuilder b;
  const ValueId a = b.Input("a", {2, 1, 5, 33});
  const ValueId m = b.Input("m", {3, 33, 6});
  b.Output(b.Op(OpType::kMatMul, "mm", {a, m}));
  b.Output(b.Op(OpType::kMatMul, "mmc", {a, b.Const("k", {33, 17})}));
  b.Output(b.Op(OpType::kSoftmax, "sm_last", {a}, Attrs({{"axis", int64_t{-1}}})));
  b.Output(b.Op(OpType::kSoftmax, "sm_mid", {a}, Attrs({{"axis", int64_t{2}}})));
  CheckOnGpu(b.graph(), 2e-5f, 2e-2f);
}

TEST(OpenClKernels, DataMovement) {
  REQUIRE_DEVICE();
  GraphBuilder b;
  const ValueId x = b.Input("x", {2, 6, 5, 4});
  const ValueId y = b.Input("y", {2, 3, 5, 4});
  b.Output(
      b.Op(OpType::kTranspose, "tr", {x}, Attrs({{"perm", std::vector<int64_t>{0, 2, 3, 1}}})));
  b.Output(b.Op(OpType::kSlice, "sl",
                {x, b.ConstI64("st", {2}, {5, 1}), b.ConstI64("en", {2}, {0, 4}),
                 b.ConstI64("ax", {2}, {1, 3}), b.ConstI64("sp", {2}, {-2, 2})}));
  b.Output(b.Op(OpType::kConcat, "cat", {x, y, x}, Attrs({{"axis", int64_t{1}}})));
  b.Output(b.Op(OpType::kReshape, "rs", {x, b.ConstI64("shape", {2}, {12, -1})}));
  b.Output(b.Op(OpType::kFlatten, "fl", {y}, Attrs({{"axis", int64_t{2}}})));
  for (const char* mode : {"nearest", "linear"}) {
    for (const char* coord : {"half_pixel", "asymmetric", "align_corners"}) {
      const std::string name = std::string("rz_") + mode + "_" + coord;
      b.Output(b.Op(OpType::kResize, name,
                    {x, kNoValue, b.Const(name + "_s", {4}, {1.f, 1.f, 2.f, 1.5f})},
                    Attrs({{"mode", std::string(mode)},
                           {"coordinate_transformation_mode", std::string(coord)}})));
    }
  }
  CheckOnGpu(b.graph(), 1e-6f, 1e-2f);
}

}  // namespace
}  // namespace kiln
