// FusedGemm over Block16O weights (portable, AVX2, AVX-512) against the reference kernel:
// batch-1 and several rows, C as a row / scalar / matrix / absent, alpha and beta, epilogue
// activations, a 4-D A read through a_flatten_axis, N not a multiple of 16.
#include <gtest/gtest.h>

#include "ir/layout.h"
#include "kernels/cpu_features.h"
#include "runtime/session.h"
#include "tests/graph_builder.h"

namespace kiln {
namespace {

using testing::Attrs;
using testing::GraphBuilder;

void Check(const Shape& a_shape, int64_t axis, int64_t n, const Shape& c_shape, float alpha,
           float beta, const std::string& act, bool trans_b = true) {
  GraphBuilder b;
  auto a = b.Input("a", a_shape);
  const int64_t k = NumElements(Shape(a_shape.begin() + axis, a_shape.end()));
  Attributes attrs = Attrs(
      {{"transB", int64_t{trans_b}}, {"alpha", alpha}, {"beta", beta}, {"a_flatten_axis", axis}});
  if (act != "none") attrs.Set("activation", act);
  std::vector<ValueId> ins = {a, b.Const("w", trans_b ? Shape{n, k} : Shape{k, n})};
  if (!c_shape.empty() || c_shape.size() == 0) {
    if (!(c_shape.size() == 1 && c_shape[0] == 0)) ins.push_back(b.Const("c", c_shape));
  }
  b.Output(b.Op(OpType::kFusedGemm, "y", ins, attrs));
  Graph plain = b.Take();
  const auto inputs = testing::RandomInputs(plain, 5);
  const auto expected = testing::RunGraph(plain, inputs);
  Graph packed = plain;
  if (trans_b) {  // without transB the kernel reads the plain [K, N] weight
    Value& wval = packed.value(*packed.FindValue("w"));
    auto bytes = PackLayout(Layout::kBlock16O, DType::kF32, wval.shape, wval.constant->data(),
                            wval.constant->size());
    ASSERT_TRUE(bytes.ok());
    wval.constant = ConstantBytes::FromVector(std::move(bytes).value());
    wval.layout = Layout::kBlock16O;
  }
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    if (!cpu::CpuSupports(isa)) continue;
    const auto* entry =
        KernelRegistry::Global().FindEntry(packed, packed.node(0), kExecutorCpu, isa);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->key.isa, isa);
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
        FAIL() << cpu::IsaName(isa) << " threads " << threads << " A " << ShapeToString(a_shape)
               << " n " << n << " C " << ShapeToString(c_shape) << " act " << act;
      }
    }
  }
}

TEST(FusedGemmBlock16Test, MatchesReference) {
  Check({1, 512}, 1, 1000, {1000}, 1.f, 1.f, "none");            // resnet fc
  Check({1, 1280, 1, 1}, 1, 1000, {1, 1000}, 1.f, 1.f, "none");  // flattened GAP output
  Check({3, 70}, 1, 37, {3, 37}, 0.5f, 2.f, "relu");
  Check({2, 33}, 1, 5, {}, 1.f, 0.25f, "silu");   // scalar C
  Check({4, 16}, 1, 130, {0}, 1.f, 1.f, "relu");  // no C
  // MatMul-style [K, N] weights, read plain.
  Check({1, 1280}, 1, 1000, {0}, 1.f, 1.f, "none", false);  // mobilenetv2 classifier
  Check({5, 40}, 1, 23, {23}, 1.f, 1.f, "relu", false);
  Check({3, 9}, 1, 70, {}, 1.f, 1.f, "none", false);  // scalar C
}

}  // namespace
}  // namespace kiln
