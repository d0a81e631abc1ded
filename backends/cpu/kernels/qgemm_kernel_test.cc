// The int8 QGemm kernel (QConvCpu's GEMM over kI8O8K4 B) against the reference QGemm, bit for
// bit, at every int8 flavour with 1 and 2 threads: random M, K, N (panel and vector tails), u8/i8
// operands, per-feature zero points and multipliers, bias, u8/i8/i32 outputs, clamps; B given
// [K, N] left plain runs on the reference kernel (pack-weights transposes it first: the zoo
// mobilenetv2-12-int8 QGemm, scripts/int8-bitexact.sh).
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "backends/cpu/tables/int8_table.h"
#include "ir/layout.h"
#include "ir/op_schema.h"
#include "runtime/session.h"

namespace kiln {
namespace {

TEST(QGemmInt8, RandomShapes) {
  std::mt19937 rng(17);
  const DType types[] = {DType::kU8, DType::kI8};
  for (int i = 0; i < 30; ++i) {
    const int64_t m = 1 + static_cast<int64_t>(rng() % 3),
                  k = 1 + static_cast<int64_t>(rng() % 700),
                  n = 1 + static_cast<int64_t>(rng() % 70);
    const bool trans_b = i % 6 != 5;
    const DType ta = types[rng() % 2], tb = types[rng() % 2];
    const DType ty = i % 5 == 4 ? DType::kI32 : types[rng() % 2];
    auto code = [&](DType t) {
      return static_cast<int32_t>(rng() % 256) - (t == DType::kI8 ? 128 : 0);
    };
    Graph g;
    Value av;
    av.name = "a";
    av.dtype = ta;
    av.shape = {m, k};
    av.shape_known = true;
    av.quant.scales = {0.1f};
    av.quant.zero_points = {code(ta)};
    const ValueId a = g.AddValue(av);
    g.inputs().push_back(a);
    HostTensor feed("a", ta, {m, k});
    for (auto& b : feed.bytes) b = static_cast<uint8_t>(rng());
    std::vector<uint8_t> bcodes(static_cast<size_t>(n * k));
    for (auto& b : bcodes) b = static_cast<uint8_t>(rng());
    const Shape bs = trans_b ? Shape{n, k} : Shape{k, n};
    const ValueId b = g.AddConstant("b", tb, bs, ConstantBytes::Copy(bcodes.data(), bcodes.size()));
    g.value(b).quant.axis = trans_b ? 0 : 1;
    for (int64_t j = 0; j < n; ++j) {
      g.value(b).quant.scales.push_back(0.01f);
      g.value(b).quant.zero_points.push_back(i % 2 ? code(tb) : 0);
    }
    std::vector<int32_t> bias(static_cast<size_t>(n)), rq;
    for (auto& v : bias) v = static_cast<int32_t>(rng() % 20001) - 10000;
    int shift = 38;
    for (int64_t s = 1; s * s < k; s *= 2) ++shift;
    for (int64_t j = 0; j < n; ++j) {
      rq.push_back(static_cast<int32_t>((1u << 30) + rng() % (1u << 30)));
      rq.push_back(shift + static_cast<int32_t>(rng() % 3) - 1);
    }
    Node node;
    node.name = "fc";
    node.op = OpType::kQGemm;
    node.attrs.Set("transB", int64_t{trans_b});
    node.attrs.Set("out_dtype", std::string(DTypeName(ty)));
    node.inputs = {
        a, b,
        g.AddConstant("c", DType::kI32, {n}, ConstantBytes::Copy(bias.data(), bias.size() * 4))};
    if (ty != DType::kI32) {
      node.inputs.push_back(
          g.AddConstant("rq", DType::kI32, {n, 2}, ConstantBytes::Copy(rq.data(), rq.size() * 4)));
    }
    Value out;
    out.name = "y";
    out.quant.scales = {0.2f};
    out.quant.zero_points = {ty == DType::kI32 ? 0 : code(ty)};
    const ValueId y = g.AddValue(out);
    node.outputs = {y};
    g.outputs().push_back(y);
    g.AddNode(std::move(node));
    auto inferred = InferNode(g, 0);
    ASSERT_TRUE(inferred.ok()) << inferred.ToString();
    Graph packed = g;
    if (trans_b) {
      Value& w = packed.value(b);
      auto p =
          PackLayout(Layout::kI8O8K4, w.dtype, w.shape, w.constant->data(), w.constant->size());
      ASSERT_TRUE(p.ok());
      w.constant = ConstantBytes::FromVector(std::move(p).value());
      w.layout = Layout::kI8O8K4;
    }
    auto run = [&](const Graph& gr, Isa isa, int threads) -> Expected<std::vector<HostTensor>> {
      SessionOptions so;
      so.cpu_max_isa = isa;
      so.num_threads = threads;
      KILN_ASSIGN_OR_RETURN(auto s, Session::Create(std::make_shared<const Graph>(gr), so));
      return s->Run({feed});
    };
    auto want = run(g, Isa::kReference, 1);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    for (const cpu::Int8Kernels* kk : cpu::AvailableInt8Kernels()) {
      const auto* e =
          KernelRegistry::Global().FindEntry(packed, packed.node(0), kExecutorCpu, kk->isa);
      ASSERT_NE(e, nullptr);
      // B [K, N] plain: pack-weights would transpose it; as given, the reference runs it.
      EXPECT_EQ(e->key.isa, trans_b ? kk->isa : Isa::kReference);
      for (int threads : {1, 2}) {
        auto got = run(packed, kk->isa, threads);
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_EQ((*got)[0].bytes, (*want)[0].bytes)
            << "m " << m << " k " << k << " n " << n << " isa " << static_cast<int>(kk->isa)
            << " threads " << threads << " out " << DTypeName(ty);
      }
    }
  }
}

}  // namespace
}  // namespace kiln
