// FusedConv over NCHW8c activations (conv_nchw8c.h) against the plain reference kernel, on
// random shapes: each layer runs between Reorder nodes (plain input -> NCHW8c -> the layer ->
// plain output) in sessions at the portable flavour, AVX2 and AVX-512 where this CPU has them,
// and the reference ISA (the reference kernel through its layout adapter), at one and two
// threads. 1x1 layers (odd block counts, residuals), depthwise 3x3 (strides 1 and 2, pads 0
// or 1 per side), dense layers (3x3-7x7, 1x1 stride 2, residuals) and stems (plain input, 1-4
// channels, windows 1x1-7x7). Also the layout's pack/unpack and Reorder itself.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "ir/layout.h"
#include "ir/verifier.h"
#include "kernels/cpu_features.h"
#include "runtime/session.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

struct Layer {
  int64_t n, c, h, w, m, k, stride, group;
  int64_t pads[4];  // top, left, bottom, right
  std::string act;
  bool residual;
  bool stem;  // reads its input plain
};

std::string Describe(const Layer& l) {
  std::string s = "n" + std::to_string(l.n) + " c" + std::to_string(l.c) + " " +
                  std::to_string(l.h) + "x" + std::to_string(l.w) + " m" + std::to_string(l.m) +
                  " k" + std::to_string(l.k) + " s" + std::to_string(l.stride) + " g" +
                  std::to_string(l.group) + " pads";
  for (int64_t p : l.pads) s += " " + std::to_string(p);
  return s + " act " + l.act + " residual " + std::to_string(l.residual);
}

Attributes ConvAttrs(const Layer& l) {
  Attributes attrs = Attrs({{"group", l.group},
                            {"strides", std::vector<int64_t>{l.stride, l.stride}},
                            {"pads", std::vector<int64_t>(l.pads, l.pads + 4)}});
  if (l.act != "none") attrs.Set("activation", l.act);
  if (l.act == "clip") {
    attrs.Set("activation_alpha", -0.5f);
    attrs.Set("activation_beta", 1.5f);
  }
  return attrs;
}

// The layer on plain values (what the reference runs), or between Reorders with its data
// NCHW8c and its weights Block16O.
Graph BuildGraph(const Layer& l, bool blocked) {
  GraphBuilder b;
  const ValueId x = b.Input("x", {l.n, l.c, l.h, l.w});
  const ValueId w = b.Const("w", {l.m, l.c / l.group, l.k, l.k});
  std::vector<ValueId> ins = {blocked && !l.stem ? b.Op(OpType::kReorder, "xb", {x}) : x, w,
                              b.Const("b", {l.m})};
  if (l.residual) {
    GraphBuilder probe;
    const ValueId py = probe.Op(
        OpType::kFusedConv, "y",
        {probe.Input("x", {l.n, l.c, l.h, l.w}), probe.Const("w", {l.m, l.c / l.group, l.k, l.k})},
        ConvAttrs(l));
    const ValueId r = b.Input("r", probe.graph().value(py).shape);
    ins.push_back(blocked ? b.Op(OpType::kReorder, "rb", {r}) : r);
  }
  ValueId y = b.Op(OpType::kFusedConv, "y", ins, ConvAttrs(l));
  if (blocked) y = b.Op(OpType::kReorder, "yp", {y});
  b.Output(y);
  Graph g = b.Take();
  if (!blocked) return g;
  for (const char* name : {"xb", "rb", "y"}) {
    if (auto v = g.FindValue(name)) g.value(*v).layout = Layout::kNCHW8c;
  }
  Value& wv = g.value(*g.FindValue("w"));
  auto packed = PackLayout(Layout::kBlock16O, DType::kF32, wv.shape, wv.constant->data(),
                           wv.constant->size());
  EXPECT_TRUE(packed.ok());
  wv.constant = ConstantBytes::FromVector(std::move(packed).value());
  wv.layout = Layout::kBlock16O;
  return g;
}

void Check(const Layer& l, uint32_t seed, std::vector<int> thread_counts = {1, 2},
           float tol = 1e-5f) {
  const Graph plain = BuildGraph(l, false);
  const Graph blocked = BuildGraph(l, true);
  ASSERT_TRUE(VerifyGraph(blocked).ok()) << Describe(l);
  const auto inputs = testing::RandomInputs(plain, seed);
  const auto expected = testing::RunGraph(plain, inputs);
  const NodeId conv = blocked.value(*blocked.FindValue("y")).producer;
  ASSERT_EQ(blocked.node(conv).op, OpType::kFusedConv);
  for (Isa isa : {Isa::kReference, Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    const auto* entry =
        KernelRegistry::Global().FindEntry(blocked, blocked.node(conv), kExecutorCpu, isa);
    ASSERT_NE(entry, nullptr) << Describe(l);
    EXPECT_EQ(entry->key.isa, isa) << Describe(l);
    for (int threads : thread_counts) {
      SessionOptions so;
      so.cpu_max_isa = isa;
      so.num_threads = threads;
      auto session = Session::Create(std::make_shared<const Graph>(blocked), so);
      ASSERT_TRUE(session.ok()) << session.status().ToString() << " " << Describe(l);
      auto got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      testing::ExpectClose(expected, *got, tol);
      if (::testing::Test::HasFailure()) {
        FAIL() << "isa " << cpu::IsaName(isa) << " threads " << threads << " " << Describe(l);
      }
    }
  }
}

const char* RandomAct(std::mt19937& rng) {
  static const char* kActs[] = {"none", "relu", "clip", "silu", "sigmoid"};
  return kActs[rng() % 5];
}

TEST(FusedConvNCHW8cTest, PointwiseRandomShapes) {
  std::mt19937 rng(11);
  for (int i = 0; i < 24; ++i) {
    Layer l{};
    l.n = 1 + rng() % 2;
    l.c = 8 * (1 + rng() % 20);  // up to 160 input channels
    l.m = 8 * (1 + rng() % 9);   // odd block counts take the single-block tiles
    l.h = 1 + rng() % 23;
    l.w = 1 + rng() % 23;
    l.k = 1, l.stride = 1, l.group = 1;
    l.act = RandomAct(rng);
    l.residual = rng() % 2;
    Check(l, 100 + i);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(FusedConvNCHW8cTest, PointwiseLargePlanesSplitOverChunksAndThreads) {
  // Chunks of pixels (64 KiB of input) and one range of pixels per thread; a small plane with
  // many output blocks, where the threads split the output blocks instead.
  Check({1, 16, 112, 112, 96, 1, 1, 1, {0, 0, 0, 0}, "clip", false, false}, 1);
  Check({1, 144, 56, 56, 24, 1, 1, 1, {0, 0, 0, 0}, "none", true, false}, 2);
  Check({1, 320, 7, 7, 1280, 1, 1, 1, {0, 0, 0, 0}, "relu", false, false}, 3);
}

TEST(FusedConvNCHW8cTest, DepthwiseRandomShapes) {
  std::mt19937 rng(12);
  for (int i = 0; i < 24; ++i) {
    Layer l{};
    l.n = 1 + rng() % 2;
    l.c = 8 * (1 + rng() % 6);
    l.m = l.c, l.group = l.c, l.k = 1 + 2 * static_cast<int64_t>(rng() % 3);  // 1, 3, 5
    l.stride = 1 + rng() % 2;
    l.h = 1 + rng() % 30;
    l.w = 1 + rng() % 30;
    for (int64_t& p : l.pads) p = rng() % (l.k / 2 + 1);
    l.act = RandomAct(rng);
    if (l.h + l.pads[0] + l.pads[2] < l.k || l.w + l.pads[1] + l.pads[3] < l.k) continue;
    Check(l, 200 + i);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(FusedConvNCHW8cTest, DepthwiseEveryWidthStrideAndSidePad) {
  // The interior loops (4 pixels, 8 with AVX-512) and the border pixels meet at every column
  // count, 1x1, 3x3 and 5x5.
  for (int64_t k : {1, 3, 5}) {
    for (int64_t w = 1; w <= 21; ++w) {
      for (int64_t stride : {1, 2}) {
        for (int64_t pl = 0; pl <= k / 2; ++pl) {
          for (int64_t pr = 0; pr <= k / 2; ++pr) {
            if (w + pl + pr < k) continue;
            Layer l{1, 8, k + 1, w, 8, k, stride, 8, {k / 2, pl, k / 2, pr}, "none", false, false};
            Check(l, static_cast<uint32_t>(w * 8 + stride * 4 + pl * 2 + pr), {1});
            if (::testing::Test::HasFatalFailure()) return;
          }
        }
      }
    }
  }
}

TEST(FusedConvNCHW8cTest, StemRandomShapes) {
  std::mt19937 rng(13);
  for (int i = 0; i < 16; ++i) {
    Layer l{};
    l.n = 1 + rng() % 2;
    l.c = 1 + rng() % 4;
    l.m = 8 * (1 + rng() % 5);
    l.k = 1 + 2 * (rng() % 4);  // 1, 3, 5, 7
    l.stride = 1 + rng() % 2;
    l.group = 1;
    l.h = l.k + rng() % 30;
    l.w = l.k + rng() % 30;
    for (int64_t& p : l.pads) p = rng() % (l.k / 2 + 1);
    l.act = RandomAct(rng);
    l.stem = true;
    Check(l, 300 + i);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(FusedConvNCHW8cTest, DenseRandomShapes) {
  // Group-1 layers reading NCHW8c other than 1x1 stride 1: 3x3, 5x5, 7x7 and 1x1 stride 2,
  // any pads, residuals; small planes with an even number of Block16O pairs split those over
  // the threads, the others split rows.
  std::mt19937 rng(14);
  for (int i = 0; i < 28; ++i) {
    Layer l{};
    l.n = 1 + rng() % 2;
    // At most 96 -> 32 channels: below where the kernel leaves a 3x3 layer to Winograd.
    l.c = 8 * (1 + rng() % 12);
    l.m = 8 * (1 + rng() % 4);
    l.k = 1 + 2 * (rng() % 4);  // 1, 3, 5, 7
    l.stride = l.k == 1 ? 2 : 1 + rng() % 2;
    l.group = 1;
    l.h = l.k + rng() % 20;
    l.w = l.k + rng() % 30;
    for (int64_t& p : l.pads) p = rng() % (l.k / 2 + 2);
    l.act = RandomAct(rng);
    l.residual = rng() % 2;
    // Sums of up to 96 x 49 products, in another order than the reference's.
    Check(l, 400 + i, {1, 2}, 1e-4f);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Rows of a large plane over the threads, and the pairs of a 13x13 one (squeezenet's).
  Check({1, 16, 55, 55, 64, 3, 1, 1, {1, 1, 1, 1}, "relu", false, false}, 450);
  Check({1, 64, 13, 13, 256, 3, 1, 1, {1, 1, 1, 1}, "relu", false, false}, 451);
  Check({1, 64, 13, 13, 24, 3, 1, 1, {1, 1, 1, 1}, "none", true, false}, 452);
  // Unpadded layers read their input in place (no padded copy).
  Check({2, 24, 15, 17, 16, 3, 2, 1, {0, 0, 0, 0}, "relu", true, false}, 453);
  Check({1, 32, 14, 14, 64, 1, 2, 1, {0, 0, 0, 0}, "none", false, false}, 454);
  Check({1, 3, 23, 23, 64, 3, 2, 1, {0, 0, 0, 0}, "relu", false, true}, 455);
}

TEST(FusedConvNCHW8cTest, LayersTheKernelsDoNotTakeHaveNoBlockedSimdKernel) {
  // A residual on a depthwise layer, a 7x7 depthwise window, channels not a multiple of 8, a
  // 9x9 window, a 3x3 layer Winograd runs faster (64 -> 64 on 28x28): only the reference
  // adapter writes them NCHW8c.
  std::vector<Layer> layers = {
      {1, 16, 9, 9, 16, 3, 1, 16, {1, 1, 1, 1}, "none", true, false},
      {1, 16, 9, 9, 16, 7, 1, 16, {3, 3, 3, 3}, "none", false, false},
      {1, 12, 9, 9, 16, 1, 1, 1, {0, 0, 0, 0}, "none", false, false},
      {1, 16, 11, 11, 16, 9, 1, 1, {0, 0, 0, 0}, "none", false, false},
      {1, 64, 28, 28, 64, 3, 1, 1, {1, 1, 1, 1}, "none", false, false},
  };
  for (const Layer& l : layers) {
    const Graph g = BuildGraph(l, true);
    for (Isa isa : {Isa::kScalar, Isa::kAvx2}) {
      if (!cpu::CpuSupports(isa)) continue;
      const NodeId conv = g.value(*g.FindValue("y")).producer;
      const auto* entry = KernelRegistry::Global().FindEntry(g, g.node(conv), kExecutorCpu, isa);
      ASSERT_NE(entry, nullptr) << Describe(l);
      EXPECT_EQ(entry->key.isa, Isa::kReference) << Describe(l);
    }
  }
}

// A squeeze-excite tail on NCHW8c: GlobalAveragePool (blocked in, plain means out) and the Mul
// of the blocked tensor by a per-channel vector (in either order) or by a tensor of its shape.
TEST(NCHW8cRegionOpsTest, MatchTheReferenceAtEveryFlavour) {
  for (int variant = 0; variant < 3; ++variant) {
    for (int64_t c : {8, 24}) {
      auto build = [&](bool blocked) {
        GraphBuilder b;
        const ValueId x = b.Input("x", {2, c, 5, 7});
        const ValueId other = b.Input("s", variant == 2 ? Shape{2, c, 5, 7} : Shape{2, c, 1, 1});
        const ValueId xb = blocked ? b.Op(OpType::kReorder, "xb", {x}) : x;
        const ValueId ob = blocked && variant == 2 ? b.Op(OpType::kReorder, "ob", {other}) : other;
        b.Output(b.Op(OpType::kGlobalAveragePool, "gap", {xb}));
        const ValueId y =
            b.Op(OpType::kMul, "y",
                 variant == 1 ? std::vector<ValueId>{ob, xb} : std::vector<ValueId>{xb, ob});
        b.Output(blocked ? b.Op(OpType::kReorder, "yp", {y}) : y);
        Graph g = b.Take();
        if (blocked) {
          for (const char* name : {"xb", "ob", "y"}) {
            if (auto v = g.FindValue(name)) g.value(*v).layout = Layout::kNCHW8c;
          }
        }
        return g;
      };
      const Graph plain = build(false), blocked = build(true);
      const auto inputs = testing::RandomInputs(plain, 40 + variant);
      const auto expected = testing::RunGraph(plain, inputs);
      for (Isa isa : {Isa::kReference, Isa::kScalar, Isa::kAvx2}) {
        if (!cpu::CpuSupports(isa)) continue;
        for (const char* op : {"gap", "y"}) {
          const NodeId n = blocked.value(*blocked.FindValue(op)).producer;
          const auto* entry =
              KernelRegistry::Global().FindEntry(blocked, blocked.node(n), kExecutorCpu, isa);
          ASSERT_NE(entry, nullptr) << op;
          EXPECT_EQ(entry->key.isa, isa == Isa::kReference ? Isa::kReference : Isa::kScalar) << op;
        }
        SessionOptions so;
        so.cpu_max_isa = isa;
        auto session = Session::Create(std::make_shared<const Graph>(blocked), so);
        ASSERT_TRUE(session.ok()) << session.status().ToString();
        auto got = (*session)->Run(inputs);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        testing::ExpectClose(expected, *got, 1e-5f);
        if (::testing::Test::HasFailure()) {
          FAIL() << "variant " << variant << " c " << c << " isa " << cpu::IsaName(isa);
        }
      }
    }
  }
}

// Runs `plain` (a graph of plain values) and its blocked twin (`blocked`: the same ops between
// Reorders, the names in `blocked_names` stored NCHW8c) at every flavour, one and two threads,
// and expects the same outputs; `op` names a node whose kernel must be `want` past the
// reference (the portable or AVX2 flavour: the pools and Concat are memory-bound).
void CheckBlockedOps(const Graph& plain, Graph blocked, const std::vector<std::string>& names,
                     const std::string& op, uint32_t seed, const std::string& what,
                     int64_t nan_every = 0) {
  for (const std::string& name : names) {
    if (auto v = blocked.FindValue(name)) blocked.value(*v).layout = Layout::kNCHW8c;
  }
  ASSERT_TRUE(VerifyGraph(blocked).ok()) << what;
  auto inputs = testing::RandomInputs(plain, seed);
  if (nan_every > 0) {  // every nan_every-th input value NaN
    for (HostTensor& t : inputs) {
      float* v = t.data<float>();
      for (int64_t i = 0; i < NumElements(t.shape); i += nan_every) v[i] = std::nanf("");
    }
  }
  const auto expected = testing::RunGraph(plain, inputs);
  const NodeId n = blocked.value(*blocked.FindValue(op)).producer;
  for (Isa isa : {Isa::kReference, Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    const auto* entry =
        KernelRegistry::Global().FindEntry(blocked, blocked.node(n), kExecutorCpu, isa);
    ASSERT_NE(entry, nullptr) << what;
    EXPECT_NE(entry->key.isa == Isa::kReference, isa != Isa::kReference) << what;
    for (int threads : {1, 2}) {
      SessionOptions so;
      so.cpu_max_isa = isa;
      so.num_threads = threads;
      auto session = Session::Create(std::make_shared<const Graph>(blocked), so);
      ASSERT_TRUE(session.ok()) << session.status().ToString() << " " << what;
      auto got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      testing::ExpectClose(expected, *got, 1e-5f);
      if (::testing::Test::HasFailure()) {
        FAIL() << what << " isa " << cpu::IsaName(isa) << " threads " << threads;
      }
    }
  }
}

// Max and average pools over NCHW8c: random windows 1x1-5x5 (and the unrolled 2x2 and 3x3),
// strides 1-3, pads per side, ceil_mode, count_include_pad, planes from 1x1.
TEST(NCHW8cRegionOpsTest, PoolsMatchTheReferenceOnRandomWindows) {
  std::mt19937 rng(15);
  for (int i = 0; i < 40; ++i) {
    const bool is_max = i % 2 == 0;
    const int64_t kh = 1 + rng() % 5, kw = i % 4 < 2 ? kh : 1 + rng() % 5;
    const int64_t sh = 1 + rng() % 3, sw = 1 + rng() % 3;
    std::vector<int64_t> pads(4);
    for (size_t k = 0; k < 4; ++k) pads[k] = rng() % ((k % 2 == 0 ? kh : kw) / 2 + 1);
    const int64_t c = 8 * (1 + rng() % 3), h = kh + rng() % 12, w = kw + rng() % 12;
    Attributes attrs = Attrs({{"kernel_shape", std::vector<int64_t>{kh, kw}},
                              {"strides", std::vector<int64_t>{sh, sw}},
                              {"pads", pads},
                              {"ceil_mode", static_cast<int64_t>(rng() % 2)}});
    if (!is_max) attrs.Set("count_include_pad", static_cast<int64_t>(rng() % 2));
    const OpType op = is_max ? OpType::kMaxPool : OpType::kAveragePool;
    auto build = [&](bool blocked) {
      GraphBuilder b;
      ValueId x = b.Input("x", {1 + static_cast<int64_t>(i % 3 == 0), c, h, w});
      if (blocked) x = b.Op(OpType::kReorder, "xb", {x});
      ValueId y = b.Op(op, "y", {x}, attrs);
      if (blocked) y = b.Op(OpType::kReorder, "yp", {y});
      b.Output(y);
      return b.Take();
    };
    const std::string what = std::string(is_max ? "max" : "avg") + " k" + std::to_string(kh) + "x" +
                             std::to_string(kw) + " s" + std::to_string(sh) + "x" +
                             std::to_string(sw) + " on " + std::to_string(h) + "x" +
                             std::to_string(w);
    CheckBlockedOps(build(false), build(true), {"xb", "y"}, "y", 500 + i, what);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// Max pools over NCHW8c with NaN taps, which the reference skips (v > best): the separable
// 3-wide stride-2 path (column maxima from -FLT_MAX), the AVX-512 stride-1 pairs, the clipped
// border pixels and a 2x2 window, with pads and ceil_mode.
TEST(NCHW8cRegionOpsTest, MaxPoolsSkipNaNTapsAsTheReference) {
  struct Window {
    int64_t k, s, pad, ceil;
  };
  int i = 0;
  for (const Window& win :
       {Window{3, 2, 0, 1}, Window{3, 2, 1, 0}, Window{3, 1, 1, 0}, Window{2, 2, 0, 1}}) {
    const Attributes attrs = Attrs({{"kernel_shape", std::vector<int64_t>{win.k, win.k}},
                                    {"strides", std::vector<int64_t>{win.s, win.s}},
                                    {"pads", std::vector<int64_t>(4, win.pad)},
                                    {"ceil_mode", win.ceil}});
    auto build = [&](bool blocked) {
      GraphBuilder b;
      ValueId x = b.Input("x", {1, 16, 13, 23});
      if (blocked) x = b.Op(OpType::kReorder, "xb", {x});
      ValueId y = b.Op(OpType::kMaxPool, "y", {x}, attrs);
      if (blocked) y = b.Op(OpType::kReorder, "yp", {y});
      b.Output(y);
      return b.Take();
    };
    const std::string what = "max k" + std::to_string(win.k) + " s" + std::to_string(win.s) + " p" +
                             std::to_string(win.pad) + " with NaN taps";
    CheckBlockedOps(build(false), build(true), {"xb", "y"}, "y", 900 + i++, what, 7);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// A channel Concat of NCHW8c tensors (8, 16 and 24 channels; batch 2): the blocked images end
// to end, run by the kernel (the memory planner elides it in compiled graphs:
// BlockedLayoutTargetTest); a tensor with 12 channels leaves it to the reference.
TEST(NCHW8cRegionOpsTest, ConcatOfWholeBlocksMatchesTheReference) {
  auto build = [&](bool blocked, int64_t third) {
    GraphBuilder b;
    std::vector<ValueId> ins;
    int i = 0;
    for (int64_t c : {int64_t{8}, int64_t{16}, third}) {
      ValueId x = b.Input("x" + std::to_string(i), {2, c, 5, 7});
      if (blocked) x = b.Op(OpType::kReorder, "b" + std::to_string(i), {x});
      ins.push_back(x);
      ++i;
    }
    ValueId y = b.Op(OpType::kConcat, "y", ins, Attrs({{"axis", int64_t{1}}}));
    if (blocked) y = b.Op(OpType::kReorder, "yp", {y});
    b.Output(y);
    return b.Take();
  };
  CheckBlockedOps(build(false, 24), build(true, 24), {"b0", "b1", "b2", "y"}, "y", 600,
                  "concat 8+16+24");
  Graph odd = build(true, 12);
  for (const char* name : {"b0", "b1", "b2", "y"}) {
    odd.value(*odd.FindValue(name)).layout = Layout::kNCHW8c;
  }
  const NodeId n = odd.value(*odd.FindValue("y")).producer;
  const auto* entry =
      KernelRegistry::Global().FindEntry(odd, odd.node(n), kExecutorCpu, Isa::kAvx2);
  ASSERT_NE(entry, nullptr);
  EXPECT_EQ(entry->key.isa, Isa::kReference);
}

TEST(NCHW8cLayoutTest, PackUnpackRoundTripPadsChannelsWithZeros) {
  const Shape shape = {2, 11, 3, 5};  // 11 channels: the second block has 3 real lanes
  std::vector<float> plain(2 * 11 * 3 * 5);
  for (size_t i = 0; i < plain.size(); ++i) plain[i] = static_cast<float>(i) + 1.f;
  const auto* bytes = reinterpret_cast<const uint8_t*>(plain.data());
  EXPECT_EQ(LayoutByteSize(Layout::kNCHW8c, DType::kF32, shape), 2u * 16 * 15 * 4);
  auto packed = PackLayout(Layout::kNCHW8c, DType::kF32, shape, bytes, plain.size() * 4);
  ASSERT_TRUE(packed.ok());
  ASSERT_EQ(packed->size(), 2u * 16 * 15 * 4);
  const auto* p = reinterpret_cast<const float*>(packed->data());
  // Element (n=1, c=9, h=2, w=4): block 1, lane 1, pixel 14.
  EXPECT_EQ(p[((1 * 2 + 1) * 15 + 14) * 8 + 1], plain[((1 * 11 + 9) * 3 + 2) * 5 + 4]);
  EXPECT_EQ(p[((0 * 2 + 1) * 15 + 7) * 8 + 5], 0.f);  // lane 5 of block 1 is channel 13: pad
  auto back = UnpackLayout(Layout::kNCHW8c, DType::kF32, shape, packed->data(), packed->size());
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, std::vector<uint8_t>(bytes, bytes + plain.size() * 4));
  EXPECT_EQ(LayoutByteSize(Layout::kNCHW8c, DType::kF32, {4, 8}), SIZE_MAX);
  EXPECT_FALSE(PackLayout(Layout::kNCHW8c, DType::kF32, {4, 8}, bytes, 128).ok());
  EXPECT_TRUE(IsValidLayout(static_cast<int32_t>(Layout::kNCHW8c)));
}

TEST(NCHW8cLayoutTest, ReorderRoundTripsAnyChannelCountAndDtype) {
  for (int64_t c : {1, 8, 13, 24}) {
    GraphBuilder b;
    const ValueId x = b.Input("x", {2, c, 3, 4});
    const ValueId xb = b.Op(OpType::kReorder, "xb", {x});
    b.Output(b.Op(OpType::kReorder, "y", {xb}));
    Graph g = b.Take();
    g.value(xb).layout = Layout::kNCHW8c;
    const auto inputs = testing::RandomInputs(g, 5);
    auto session = Session::Create(std::make_shared<const Graph>(std::move(g)), SessionOptions{});
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    auto got = (*session)->Run(inputs);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_EQ((*got)[0].bytes, inputs[0].bytes) << "channels " << c;
  }
}

TEST(NCHW8cLayoutTest, SessionOutputsOfBlockedValuesArePlain) {
  // What calibration's observers do: a blocked intermediate made a graph output.
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 13, 2, 3});
  const ValueId xb = b.Op(OpType::kReorder, "xb", {x});
  b.Output(xb);
  Graph g = b.Take();
  g.value(xb).layout = Layout::kNCHW8c;
  const auto inputs = testing::RandomInputs(g, 6);
  auto session = Session::Create(std::make_shared<const Graph>(std::move(g)), SessionOptions{});
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto got = (*session)->Run(inputs);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*got)[0].bytes, inputs[0].bytes);
}

}  // namespace
}  // namespace kiln
