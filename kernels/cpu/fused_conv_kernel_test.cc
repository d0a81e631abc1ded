// The AVX2 / AVX-512 FusedConv over Block16O weights against the reference kernel, through
// sessions at each of those ISAs this CPU runs: random geometries (1x1, 3x3 stride 1 and 2,
// 7x7 stems, depthwise 3x3/5x5, groups, dilations, odd sizes, batch 2), residual inputs and
// every kind of epilogue activation. Nodes the SIMD paths do not take go to the portable one.
#include <gtest/gtest.h>

#include <random>

#include "ir/layout.h"
#include "kernels/cpu/cpu_features.h"
#include "runtime/session.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

struct Geometry {
  int64_t n, c, h, w, m, k, stride, pad, dilation, group;
};

void Check(const Geometry& geo, const std::string& act, bool residual, uint32_t seed) {
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
  Graph plain = b.Take();
  const auto inputs = testing::RandomInputs(plain, seed);
  const auto expected = testing::RunGraph(plain, inputs);

  Graph packed = plain;
  Value& wval = packed.value(*packed.FindValue("w"));
  auto bytes = PackLayout(Layout::kBlock16O, DType::kF32, wval.shape, wval.constant->data(),
                          wval.constant->size());
  ASSERT_TRUE(bytes.ok());
  wval.constant = ConstantBytes::FromVector(std::move(bytes).value());
  wval.layout = Layout::kBlock16O;
  const bool grouped_split = geo.group != 1 && geo.group != geo.c && (geo.m / geo.group) % 8 != 0;
  for (Isa isa : {Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    const auto* entry =
        KernelRegistry::Global().FindEntry(packed, packed.node(0), ExecutorKind::kCpu, isa);
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
        FAIL() << "isa " << cpu::IsaName(isa) << " threads " << threads << " n" << geo.n << " c"
               << geo.c << " " << geo.h << "x" << geo.w << " m" << geo.m << " k" << geo.k << " s"
               << geo.stride << " p" << geo.pad << " d" << geo.dilation << " g" << geo.group
               << " act " << act << " residual " << residual;
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

}  // namespace
}  // namespace kiln
