// The portable Block16O FusedConv against the reference kernel on random geometries (groups
// and depthwise, strides, dilations, pads, odd sizes), with and without residual, activation
// and f16-stored weights, at one and three threads.
#include <gtest/gtest.h>

#include <random>

#include "ir/layout.h"
#include "runtime/session.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

// Runs the graph's single FusedConv with the reference kernel, and with its weights packed to
// Block16O (optionally f16) on the scalar kernel; compares.
void Check(std::mt19937& rng, int trial) {
  const int64_t group = rng() % 3 == 0 ? 1 + rng() % 3 : 1;
  const bool depthwise = rng() % 4 == 0;
  const int64_t cg = depthwise ? 1 : 1 + rng() % 5;
  const int64_t c = depthwise ? 1 + rng() % 20 : cg * group;
  const int64_t m = depthwise ? c : group * (1 + rng() % 20);
  const int64_t g = depthwise ? c : group;
  const int64_t k = 1 + rng() % 3, h = k + rng() % 7, w = k + rng() % 9;
  const int64_t s = 1 + rng() % 2, d = 1 + rng() % 2;
  const int64_t p = rng() % 2;
  GraphBuilder b;
  auto x = b.Input("x", {1 + static_cast<int64_t>(rng() % 2), c, h + (d - 1) * k, w + (d - 1) * k});
  Attributes attrs = Attrs({{"group", g},
                            {"strides", std::vector<int64_t>{s, s}},
                            {"dilations", std::vector<int64_t>{d, d}},
                            {"pads", std::vector<int64_t>{p, 0, 0, p}}});
  const char* acts[] = {"none", "relu", "silu", "hard_swish"};
  const std::string act = acts[rng() % 4];
  if (act != "none") attrs.Set("activation", act);
  auto wv = b.Const("w", {m, cg, k, k});
  std::vector<ValueId> ins = {x, wv, b.Const("b", {m})};
  // A residual input of the output's shape, found by running the conv once.
  GraphBuilder probe;
  auto px = probe.Input("x", b.graph().value(x).shape);
  auto py = probe.Op(OpType::kFusedConv, "y", {px, probe.Const("w", {m, cg, k, k})}, attrs);
  const Shape out = probe.graph().value(py).shape;
  const bool residual = rng() % 2;
  if (residual) ins.push_back(b.Input("r", out));
  b.Output(b.Op(OpType::kFusedConv, "y", ins, attrs));
  Graph plain = b.Take();
  const auto inputs = testing::RandomInputs(plain, static_cast<uint32_t>(trial));
  const auto expected = testing::RunGraph(plain, inputs);

  for (bool f16 : {false, true}) {
    Graph packed = plain;
    Value& wval = packed.value(*packed.FindValue("w"));
    auto bytes = PackLayout(Layout::kBlock16O, DType::kF32, wval.shape, wval.constant->data(),
                            wval.constant->size());
    ASSERT_TRUE(bytes.ok());
    if (f16) {
      std::vector<uint16_t> half(bytes->size() / 4);
      for (size_t i = 0; i < half.size(); ++i) {
        half[i] = FloatToHalf(reinterpret_cast<const float*>(bytes->data())[i]);
      }
      wval.dtype = DType::kF16;
      wval.constant = ConstantBytes::Copy(half.data(), half.size() * 2);
    } else {
      wval.constant = ConstantBytes::FromVector(std::move(bytes).value());
    }
    wval.layout = Layout::kBlock16O;
    // The portable kernel is the one that takes it (the reference one could too).
    const auto* entry =
        KernelRegistry::Global().FindEntry(packed, packed.node(0), kExecutorCpu, Isa::kScalar);
    ASSERT_NE(entry, nullptr);
    ASSERT_EQ(entry->key.isa, Isa::kScalar);
    for (int threads : {1, 3}) {
      SessionOptions so;
      so.cpu_max_isa = Isa::kScalar;
      so.num_threads = threads;
      auto session = Session::Create(std::make_shared<const Graph>(packed), so);
      ASSERT_TRUE(session.ok()) << session.status().ToString();
      ASSERT_EQ((*session)->Placement()[0], "cpu");
      auto got = (*session)->Run(inputs);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      // f16 weights round each weight to 11 bits: compare loosely then.
      testing::ExpectClose(expected, *got, f16 ? 5e-3f : 1e-5f);
      if (::testing::Test::HasFailure()) {
        FAIL() << "trial " << trial << " group " << g << " c " << c << " m " << m << " k " << k
               << " stride " << s << " dilation " << d << " act " << act << " f16 " << f16;
      }
    }
  }
}

TEST(FusedConvBlock16ScalarTest, MatchesReferenceOnRandomGeometries) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 60; ++trial) Check(rng, trial);
}

}  // namespace
}  // namespace kiln
