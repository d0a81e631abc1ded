// The AVX2 / AVX-512 FusedConv over Block16O weights against the reference kernel, through
// sessions at each of those ISAs this CPU runs: random geometries (1x1, 3x3 stride 1 and 2,
// 7x7 stems, depthwise 3x3/5x5, groups, dilations, odd sizes, batch 2), residual inputs and
// every kind of epilogue activation. Nodes the SIMD paths do not take go to the portable one.
// The Winograd kernels over Wino43Block16O weights likewise, the portable flavour included, and
// the layout's pack/unpack round trip.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "backends/cpu/kernels/conv_gemm_t.h"
#include "backends/cpu/kernels/conv_stem.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "ir/layout.h"
#include "kernels/cpu_features.h"
#include "runtime/session.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

struct Geometry {
  int64_t n, c, h, w, m, k, stride, pad, dilation, group;
};

Graph BuildGraph(const Geometry& geo, const std::string& act, bool residual) {
  GraphBuilder b;
  auto x = b.Input("x", {geo.n, geo.c, geo.h, geo.w});
  Attributes attrs = Attrs({{"group", geo.group},
                            {"strides", std::vector<int64_t>{geo.stride, geo.stride}},
                            {"dilations", std::vector<int64_t>{geo.dilation, geo.dilation}},
                            {"pads", std::vector<int64_t>{geo.pad, geo.pad, geo.pad, geo.pad}}});
  if (act != "none") attrs.Set("activation", act);
  if (act == "clip") {
    attrs.Set("activation_alpha", 0.f);
    attrs.Set("activation_beta", 6.f);
  }
  auto wv = b.Const("w", {geo.m, geo.c / geo.group, geo.k, geo.k});
  std::vector<ValueId> ins = {x, wv, b.Const("b", {geo.m})};
  GraphBuilder probe;
  auto px = probe.Input("x", b.graph().value(x).shape);
  auto py = probe.Op(OpType::kFusedConv, "y",
                     {px, probe.Const("w", {geo.m, geo.c / geo.group, geo.k, geo.k})}, attrs);
  if (residual) ins.push_back(b.Input("r", probe.graph().value(py).shape));
  b.Output(b.Op(OpType::kFusedConv, "y", ins, attrs));
  return b.Take();
}

// `plain` with its weight "w" packed into `layout`.
Graph Packed(const Graph& plain, Layout layout) {
  Graph packed = plain;
  Value& wval = packed.value(*packed.FindValue("w"));
  auto bytes =
      PackLayout(layout, DType::kF32, wval.shape, wval.constant->data(), wval.constant->size());
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  wval.constant = ConstantBytes::FromVector(std::move(bytes).value());
  wval.layout = layout;
  return packed;
}

// The kernels' geometry of `geo` (out_h 0 where it has no output).
cpu::Conv2dGeometry ConvGeometryOf(const Geometry& geo) {
  cpu::Conv2dGeometry cg;
  cg.batch = geo.n, cg.in_c = geo.c, cg.in_h = geo.h, cg.in_w = geo.w, cg.out_c = geo.m;
  cg.kernel_h = cg.kernel_w = geo.k, cg.stride_h = cg.stride_w = geo.stride;
  cg.pad_top = cg.pad_left = cg.pad_bottom = cg.pad_right = geo.pad;
  cg.dilation_h = cg.dilation_w = geo.dilation, cg.groups = geo.group;
  if (!cg.ComputeOutput()) cg.out_h = 0;
  return cg;
}

std::string Describe(const Geometry& geo, const std::string& act, bool residual) {
  return " n" + std::to_string(geo.n) + " c" + std::to_string(geo.c) + " " + std::to_string(geo.h) +
         "x" + std::to_string(geo.w) + " m" + std::to_string(geo.m) + " k" + std::to_string(geo.k) +
         " s" + std::to_string(geo.stride) + " p" + std::to_string(geo.pad) + " d" +
         std::to_string(geo.dilation) + " g" + std::to_string(geo.group) + " act " + act +
         " residual " + std::to_string(residual);
}

void Check(const Geometry& geo, const std::string& act, bool residual, uint32_t seed) {
  const Graph plain = BuildGraph(geo, act, residual);
  const auto inputs = testing::RandomInputs(plain, seed);
  const auto expected = testing::RunGraph(plain, inputs);
  const Graph packed = Packed(plain, Layout::kBlock16O);
  const bool grouped_split = geo.group != 1 && geo.group != geo.c && (geo.m / geo.group) % 8 != 0;
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    const auto* entry =
        KernelRegistry::Global().FindEntry(packed, packed.node(0), kExecutorCpu, isa);
    ASSERT_NE(entry, nullptr);
    // The SIMD kernel takes every node but grouped convs whose groups split an 8-row panel.
    EXPECT_EQ(entry->key.isa, grouped_split ? Isa::kScalar : isa);
    for (int threads : {1, 2}) {
      SessionOptions so;
      so.cpu_max_isa = isa;
      so.num_threads = threads;
      auto session = Session::Create(std::make_shared<const Graph>(packed), so);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      auto got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      testing::ExpectClose(expected, *got, 1e-5f);
      if (::testing::Test::HasFailure()) {
        FAIL() << "isa " << cpu::IsaName(isa) << " threads " << threads
               << Describe(geo, act, residual);
      }
    }
  }
}

// Winograd over Wino43Block16O at every flavour this CPU runs (scalar included): F(4x4, 3x3)
// rounds differently from the direct sum, hence the looser bound (relative to max |y|).
void CheckWinograd(const Geometry& geo, const std::string& act, bool residual, uint32_t seed) {
  const Graph plain = BuildGraph(geo, act, residual);
  const auto inputs = testing::RandomInputs(plain, seed);
  const auto expected = testing::RunGraph(plain, inputs);
  const Graph packed = Packed(plain, Layout::kWino43Block16O);
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    const auto* entry =
        KernelRegistry::Global().FindEntry(packed, packed.node(0), kExecutorCpu, isa);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->key.isa, isa);
    ASSERT_TRUE(entry->traits.packing.has_value());
    EXPECT_EQ(entry->traits.packing->layout, Layout::kWino43Block16O);
    for (int threads : {1, 2}) {
      SessionOptions so;
      so.cpu_max_isa = isa;
      so.num_threads = threads;
      auto session = Session::Create(std::make_shared<const Graph>(packed), so);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      auto got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      testing::ExpectClose(expected, *got, 2e-5f * static_cast<float>(geo.c));
      if (::testing::Test::HasFailure()) {
        FAIL() << "winograd isa " << cpu::IsaName(isa) << " threads " << threads
               << Describe(geo, act, residual);
      }
    }
  }
}

TEST(FusedConvSimdTest, LayerShapes) {
  const char* acts[] = {"none", "relu", "clip", "silu", "hard_swish"};
  int i = 0;
  for (const Geometry& g : std::vector<Geometry>{
           {1, 16, 14, 14, 24, 1, 1, 0, 1, 1},   // pointwise (direct B)
           {1, 13, 11, 9, 17, 3, 1, 1, 1, 1},    // 3x3 s1, odd channels and sizes
           {2, 8, 15, 15, 32, 3, 2, 1, 1, 1},    // 3x3 s2, batch 2
           {1, 3, 29, 29, 20, 7, 2, 3, 1, 1},    // stem
           {1, 24, 13, 13, 24, 3, 1, 1, 1, 24},  // depthwise 3x3
           {1, 40, 9, 9, 40, 5, 2, 2, 1, 40},    // depthwise 5x5 s2 (three blocks)
           {1, 16, 12, 12, 32, 3, 1, 2, 2, 2},   // groups of 16 out channels, dilation 2
           {1, 12, 8, 8, 12, 3, 1, 1, 1, 3},     // groups of 4 out channels: portable kernel
       }) {
    Check(g, acts[i % 5], i % 2 == 1, static_cast<uint32_t>(i + 1));
    ++i;
  }
}

// Small output planes take the transposed GEMM (ConvGemmT) where the ISA has it (AVX-512; AVX2
// with its own tile layout, where fewer of these win): 7x7 and 5x5
// planes, reductions longer than one weight slice (3 x 3 x 64 = 576), channel counts that end
// in a half tile, few tiles (split by panels at 2 threads), batch 2, residuals and
// activations; same-size windows with 256 outputs and 1x1 layers with 1 MiB of weights, which
// take it whatever the padding; a last tile of 8 channels (520 outputs). (Otherwise channel
// counts that are not multiples of 16 pad too much for it to win; RandomGeometries covers what
// it leaves to ConvGemm.)
TEST(FusedConvSimdTest, SmallPlanesTransposed) {
  const char* acts[] = {"relu", "clip", "silu", "none"};
  const std::vector<Geometry> geos = {
      {1, 64, 7, 7, 80, 3, 1, 1, 1, 1},     // 5 blocks: 2 full tiles and a half one
      {2, 24, 14, 14, 272, 1, 2, 0, 1, 1},  // 1x1 stride 2 to 7x7, batch 2, a half tile
      {1, 32, 6, 6, 16, 3, 1, 1, 1, 1},     // 36 pixels: a last panel of 4
      {1, 160, 7, 7, 960, 1, 1, 0, 1, 1},   // pointwise, as in mobilenetv2's last stages
      {1, 24, 13, 13, 256, 3, 1, 1, 1, 1},  // same-size 3x3, 256 outputs: wins despite padding
      {1, 528, 5, 5, 520, 1, 1, 0, 1, 1},   // 1x1 with over 1 MiB of weights, a half tile
      {1, 576, 7, 7, 160, 1, 1, 0, 1, 1},   // pointwise to few channels on 7x7
      {1, 40, 7, 7, 48, 1, 1, 0, 1, 1},     // a short reduction, one tile and a half
      // Stride 2 through phase planes: halving (14 -> 7, 13 -> 7), one plane per window
      // column (15 -> 7 unpadded), batch 2 (split per image), 14x14 outputs with 160 channels.
      {1, 40, 14, 14, 64, 3, 2, 1, 1, 1},
      {2, 24, 13, 13, 48, 3, 2, 1, 1, 1},
      {1, 16, 15, 15, 32, 3, 2, 0, 1, 1},
      {1, 20, 28, 28, 160, 3, 2, 1, 1, 1},
      // 160 channels in and out on 14x14 (AVX2 too: a last panel of 4, a last tile of 16).
      {1, 160, 14, 14, 176, 3, 1, 1, 1, 1},
      // 192 outputs or more and at least twice (here under 4x) the inputs (AVX2 too): 64 -> 208
      // on 14x14 (a last tile of 16), and stride 2 to 14x14 as resnet18's 128 -> 256.
      {1, 64, 14, 14, 208, 3, 1, 1, 1, 1},
      {1, 96, 28, 28, 192, 3, 2, 1, 1, 1},
  };
  int i = 0;
  for (const Geometry& g : geos) {
    const cpu::Conv2dGeometry cg = ConvGeometryOf(g);
    ASSERT_TRUE(cg.out_h > 0);
    if (const cpu::CpuKernels* k = cpu::GetCpuKernels(Isa::kAvx512); k && k->gemm_t) {
      EXPECT_TRUE(cpu::ConvGemmT::Wins(cg, *k)) << Describe(g, "none", false);
    }
    // AVX2 takes planes up to 8x8 with 64 channels or more, the 1x1 layers with 1 MiB of
    // weights, and 3x3 windows with 160 channels in and out or with 192 outputs or more and
    // at least twice as many outputs as inputs.
    if (const cpu::CpuKernels* k = cpu::GetCpuKernels(Isa::kAvx2); k && k->gemm_t) {
      const bool want =
          (cg.out_plane() <= 64 && cg.out_c >= 64) || (g.k == 1 && g.c * g.m >= 1 << 18) ||
          (g.k == 3 && g.c >= 160 && g.m >= 160) || (g.k == 3 && g.m >= 192 && g.m >= 2 * g.c);
      EXPECT_EQ(cpu::ConvGemmT::Wins(cg, *k), want) << Describe(g, "none", false);
    }
    Check(g, acts[i % 4], i % 2 == 0, static_cast<uint32_t>(300 + i));
    ++i;
  }
}

// A plane's last panel of 1-7 pixels (AVX2 runs a panel in passes of 4 rows, then 1-3): 7x7
// and 5x5 (49, 25 = 8q + 1), 2x5 (8 + 2), 3x9 (24 + 3), 1x13 (8 + 5), 6x5 (24 + 6), 3x5 (8 + 7);
// a last tile of 16 channels (80, 272 outputs), of 32, of 8 and of 4 (72, 100: a partial
// column block of the store's transpose); reductions over several weight slices (K = 576, 630
// and 1152), stride 2, batch 2, residuals and activations.
TEST(FusedConvSimdTest, SmallPlanesShortLastPanel) {
  const char* acts[] = {"clip", "relu", "none", "silu"};
  const std::vector<Geometry> geos = {
      {1, 128, 7, 7, 80, 3, 1, 1, 1, 1},   // 1 pixel, K = 1152, tiles 32 + 32 + 16
      {2, 64, 5, 5, 96, 3, 1, 1, 1, 1},    // 1 pixel, batch 2
      {1, 561, 7, 7, 64, 1, 1, 0, 1, 1},   // 1 pixel, an odd last slice (K = 4 x 128 + 49)
      {1, 40, 2, 5, 80, 3, 1, 1, 1, 1},    // 2 pixels
      {1, 576, 3, 9, 96, 1, 1, 0, 1, 1},   // 3 pixels, K = 576
      {1, 48, 6, 18, 272, 3, 2, 1, 1, 1},  // 3 x 9 through phase planes, a last tile of 16
      {1, 144, 1, 13, 64, 1, 1, 0, 1, 1},  // 5 pixels: a pass of 4 and one of 1
      {1, 96, 6, 5, 72, 1, 1, 0, 1, 1},    // 6 pixels, a last tile of 8 channels
      {2, 70, 3, 5, 100, 3, 1, 1, 1, 1},   // 7 pixels, a last tile of 4, batch 2
  };
  for (size_t i = 0; i < geos.size(); ++i) {
    const Geometry& g = geos[i];
    const cpu::Conv2dGeometry cg = ConvGeometryOf(g);
    ASSERT_TRUE(cg.out_h > 0);
    ASSERT_GE(cg.out_plane() % cpu::kGemmTRows, 1);
    if (const cpu::CpuKernels* k = cpu::GetCpuKernels(Isa::kAvx2); k && k->gemm_t) {
      EXPECT_TRUE(cpu::ConvGemmT::Wins(cg, *k)) << Describe(g, "none", false);
    }
    Check(g, acts[i % 4], i % 2 == 1, static_cast<uint32_t>(500 + i));
  }
}

// 1x1 layers with at least twice as many outputs as inputs run each panel over a group of 4
// pixel tiles, and activations the tile store does not inline (SiLU, sigmoid, tanh, hard
// swish) over the group's rows: planes ending in a partial group and a partial tile, 13
// columns (rows end inside a tile), batch 2, residuals, output channels ending in a half panel.
TEST(FusedConvSimdTest, WriteHeavyPointwiseGroups) {
  const char* acts[] = {"silu", "sigmoid", "tanh", "hard_swish", "relu"};
  const std::vector<Geometry> geos = {
      {1, 16, 23, 29, 96, 1, 1, 0, 1, 1},  // 667 pixels: 6 groups, then 3 tiles and 19 columns
      {2, 12, 17, 13, 40, 1, 1, 0, 1, 1},  // batch 2, 221 pixels, a half panel
      {1, 24, 30, 30, 72, 1, 1, 0, 1, 1},  // 900 pixels: 9 groups, then 1 tile and 12 columns
      {1, 8, 11, 7, 24, 1, 1, 0, 1, 1},    // under one group
      {1, 32, 19, 21, 64, 1, 1, 0, 1, 1},  // exactly twice the inputs
  };
  for (size_t i = 0; i < geos.size(); ++i) {
    Check(geos[i], acts[i % 5], false, static_cast<uint32_t>(600 + i));
    Check(geos[i], acts[(i + 1) % 5], true, static_cast<uint32_t>(700 + i));
  }
}

// Layers with at most 4 input channels take the direct stem kernel (AVX-512; AVX2 at stride 1)
// unless they have a residual (ConvStem::Applies): 3x3, 5x5 and 7x7 stems at stride 2 (halving
// and not), stride 1, 1 and 4 channels, output channels ending in a partial block or an odd
// number of blocks, rows that end inside a 16-pixel block, batch 2, every activation kind.
TEST(FusedConvSimdTest, Stems) {
  const char* acts[] = {"relu", "clip", "silu", "none"};
  const std::vector<Geometry> geos = {
      {1, 3, 40, 40, 32, 3, 2, 0, 1, 1},  // 40 -> 19, unpadded
      {1, 3, 33, 31, 32, 3, 2, 1, 1, 1},  // mobilenetv2's kind, odd sizes
      {2, 3, 29, 29, 24, 7, 2, 3, 1, 1},  // resnet18's kind, batch 2, a partial block
      {1, 1, 17, 23, 24, 5, 1, 2, 1, 1},  // one channel, stride 1, a partial block
      {1, 4, 12, 9, 16, 3, 1, 0, 1, 1},   // four channels, unpadded
      {1, 3, 20, 20, 48, 5, 2, 2, 1, 1},  // 75 taps: three blocks (a pair, then one)
      {1, 3, 35, 37, 64, 3, 2, 0, 1, 1},  // squeezenet's kind: 27 taps, two block pairs
  };
  int i = 0;
  for (const Geometry& g : geos) {
    const cpu::Conv2dGeometry cg = ConvGeometryOf(g);
    ASSERT_TRUE(cg.out_h > 0);
    if (const cpu::CpuKernels* k = cpu::GetCpuKernels(Isa::kAvx512); k && k->stem_conv) {
      EXPECT_TRUE(cpu::ConvStem::Applies(cg, *k)) << Describe(g, "none", false);
    }
    // AVX2's stem kernel (8 pixels in the lanes) takes the stride-1 stems only.
    if (const cpu::CpuKernels* k = cpu::GetCpuKernels(Isa::kAvx2); k && k->stem_conv) {
      EXPECT_EQ(cpu::ConvStem::Applies(cg, *k), g.stride == 1) << Describe(g, "none", false);
    }
    Check(g, acts[i % 4], false, static_cast<uint32_t>(400 + i));
    Check(g, acts[(i + 1) % 4], true, static_cast<uint32_t>(500 + i));  // residual: ConvGemm
    ++i;
  }
}

TEST(FusedConvSimdTest, RandomGeometries) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 25; ++trial) {
    const bool depthwise = rng() % 4 == 0;
    const int64_t group = depthwise ? 0 : (rng() % 3 == 0 ? 2 : 1);
    const int64_t c = depthwise ? 1 + rng() % 40 : group * (1 + rng() % 12);
    const int64_t m = depthwise ? c : group * 8 * (1 + rng() % 3) + (group == 1 ? rng() % 8 : 0);
    const int64_t k = 1 + rng() % 3 * 2, s = 1 + rng() % 2, d = depthwise ? 1 : 1 + rng() % 2;
    const int64_t h = k * d + rng() % 12, w = k * d + rng() % 12;
    Check(
        {1, c, h, w, m, k, s, static_cast<int64_t>(rng() % 2) * (k / 2), d, depthwise ? c : group},
        rng() % 2 ? "relu" : "none", rng() % 2 == 0, static_cast<uint32_t>(100 + trial));
  }
}

TEST(FusedConvSimdTest, WinogradRandomGeometries) {
  std::mt19937 rng(23);
  const char* acts[] = {"none", "relu", "clip", "silu"};
  for (int trial = 0; trial < 16; ++trial) {
    const int64_t c = 1 + rng() % 40, m = 1 + rng() % 40;
    const int64_t h = 3 + rng() % 20, w = 3 + rng() % 20, n = 1 + rng() % 2;
    CheckWinograd({n, c, h, w, m, 3, 1, static_cast<int64_t>(rng() % 2), 1, 1}, acts[trial % 4],
                  trial % 3 == 0, static_cast<uint32_t>(200 + trial));
  }
}

// The pack-weights pass asks for Winograd weights where Winograd wins (a 56x56x64 layer) and
// Block16O where it does not (7x7x512), at the best CPU flavour.
TEST(FusedConvSimdTest, PackingFollowsTheAlgorithm) {
  for (const auto& [geo, want] : std::vector<std::pair<Geometry, Layout>>{
           {{1, 64, 56, 56, 64, 3, 1, 1, 1, 1}, Layout::kWino43Block16O},
           {{1, 512, 7, 7, 512, 3, 1, 1, 1, 1}, Layout::kBlock16O},
           {{1, 64, 56, 56, 64, 3, 2, 1, 1, 1}, Layout::kBlock16O},
       }) {
    const Graph g = BuildGraph(geo, "relu", false);
    for (Isa isa : {Isa::kScalar, Isa::kAvx2, kBestCpuIsa}) {
      const auto* e = KernelRegistry::Global().FindPackingEntry(g, g.node(0), kExecutorCpu, isa);
      ASSERT_NE(e, nullptr);
      ASSERT_TRUE(e->traits.packing.has_value());
      EXPECT_EQ(e->traits.packing->layout, want) << Describe(geo, "relu", false);
    }
  }
}

TEST(Wino43Block16OLayoutTest, PackUnpackRoundTripAndSizes) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  const Shape shape = {19, 5, 3, 3};
  std::vector<float> w(19 * 5 * 9);
  for (float& v : w) v = dist(rng);
  const auto* bytes = reinterpret_cast<const uint8_t*>(w.data());
  auto packed = PackLayout(Layout::kWino43Block16O, DType::kF32, shape, bytes, w.size() * 4);
  ASSERT_TRUE(packed.ok()) << packed.status().ToString();
  EXPECT_EQ(packed->size(), size_t{32} * 5 * 36 * 4);
  EXPECT_EQ(LayoutByteSize(Layout::kWino43Block16O, DType::kF32, shape), packed->size());
  auto back =
      UnpackLayout(Layout::kWino43Block16O, DType::kF32, shape, packed->data(), packed->size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->size(), w.size() * 4);
  const auto* got = reinterpret_cast<const float*>(back->data());
  for (size_t i = 0; i < w.size(); ++i) EXPECT_NEAR(got[i], w[i], 1e-5f) << i;
  // Only f32 [O, C, 3, 3]. (Value 5 is the GPU branch's GemmKO64, format 1.3.)
  const size_t none = std::numeric_limits<size_t>::max();
  EXPECT_EQ(LayoutByteSize(Layout::kWino43Block16O, DType::kF32, {19, 5, 5, 5}), none);
  EXPECT_EQ(LayoutByteSize(Layout::kWino43Block16O, DType::kF16, shape), none);
  EXPECT_EQ(LayoutByteSize(Layout::kWino43Block16O, DType::kF32, {19, 45}), none);
  EXPECT_FALSE(PackLayout(Layout::kWino43Block16O, DType::kF32, {1, 45}, bytes, 45 * 4).ok());
  EXPECT_TRUE(IsValidLayout(static_cast<int32_t>(Layout::kGemmKO64)));
  EXPECT_FALSE(IsValidLayout(static_cast<int32_t>(kLastLayout) + 1));
  EXPECT_TRUE(IsValidLayout(static_cast<int32_t>(Layout::kWino43Block16O)));
}

}  // namespace
}  // namespace kiln
