// The int8 QAdd, QMul, QLookup, QConcat, QuantizeLinear, MaxPool, QAveragePool and
// QGlobalAveragePool kernels against the reference kernels, bit for bit, at every int8 flavour
// this CPU runs with 1 and 2 threads: random sizes (vector tails, multi-share splits), u8/i8
// operands and outputs, random zero points and multipliers, narrowed clamps; QuantizeLinear
// with ties, NaN, infinities and values far outside the 8-bit range.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <random>

#include "backends/cpu/tables/int8_table.h"
#include "ir/op_schema.h"
#include "runtime/session.h"

namespace kiln {
namespace {

ValueId AddInput(Graph& g, std::vector<HostTensor>& feeds, const std::string& name, DType t,
                 const Shape& s, int32_t zero, std::mt19937& rng) {
  Value v;
  v.name = name;
  v.dtype = t;
  v.shape = s;
  v.shape_known = true;
  v.quant.scales = {0.05f};
  v.quant.zero_points = {zero};
  const ValueId id = g.AddValue(v);
  g.inputs().push_back(id);
  HostTensor h(name, t, s);
  for (auto& b : h.bytes) b = static_cast<uint8_t>(rng());
  feeds.push_back(std::move(h));
  return id;
}

// Runs g at the reference and at every int8 flavour; expects the same output bytes and that
// the flavour's own kernel ran (`fast`: whether the int8 kernels take this node).
void ExpectBitExact(const Graph& g, const std::vector<HostTensor>& feeds, bool fast,
                    const std::string& what) {
  auto run = [&](Isa isa, int threads) -> Expected<std::vector<HostTensor>> {
    SessionOptions so;
    so.cpu_max_isa = isa;
    so.num_threads = threads;
    KILN_ASSIGN_OR_RETURN(auto s, Session::Create(std::make_shared<const Graph>(g), so));
    return s->Run(feeds);
  };
  auto want = run(Isa::kReference, 1);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  for (const cpu::Int8Kernels* k : cpu::AvailableInt8Kernels()) {
    const auto* e = KernelRegistry::Global().FindEntry(g, g.node(0), kExecutorCpu, k->isa);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->key.isa, fast ? k->isa : Isa::kReference) << what;
    for (int threads : {1, 2}) {
      auto got = run(k->isa, threads);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ((*got)[0].bytes, (*want)[0].bytes)
          << what << " isa " << static_cast<int>(k->isa) << " threads " << threads;
    }
  }
}

// The requantization pair (multiplier, shift) with the shift on either side of 33 (the
// high-half and 64-bit forms of the SIMD epilogues).
std::vector<int32_t> RandomRequant(std::mt19937& rng, int32_t shift_lo, int32_t shift_span) {
  return {static_cast<int32_t>((1u << 30) + rng() % (1u << 30)),
          shift_lo + static_cast<int32_t>(rng() % static_cast<uint32_t>(shift_span))};
}

int32_t RandomZero(std::mt19937& rng, DType t) {
  return static_cast<int32_t>(rng() % 256) - (t == DType::kI8 ? 128 : 0);
}

// Finishes a one-node graph: a new value "y" (quantized per tensor, scale `scale` and zero
// point `zero`, where `zero` is given) as `node`'s output and the graph's, then the node's
// inference.
Status FinishOneNode(Graph& g, Node node, std::optional<int32_t> zero, float scale = 0.1f) {
  Value out;
  out.name = "y";
  if (zero) {
    out.quant.scales = {scale};
    out.quant.zero_points = {*zero};
  }
  const ValueId y = g.AddValue(out);
  node.outputs = {y};
  g.outputs().push_back(y);
  g.AddNode(std::move(node));
  return InferNode(g, 0);
}

// A folded Relu/Clip: the node's clamp narrowed to [lo, hi].
void Narrow(Node& node, int64_t lo, int64_t hi) {
  node.attrs.Set("qmin", lo);
  node.attrs.Set("qmax", hi);
}

TEST(QEltwiseInt8, QAddRandom) {
  std::mt19937 rng(11);
  const DType types[] = {DType::kU8, DType::kI8};
  for (int i = 0; i < 30; ++i) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % (i < 20 ? 200 : 40000));
    const Shape s = {1, n};
    const DType ta = types[rng() % 2], tb = types[rng() % 2], ty = types[rng() % 2];
    Graph g;
    std::vector<HostTensor> feeds;
    auto zero = [&](DType t) {
      return static_cast<int32_t>(rng() % 256) - (t == DType::kI8 ? 128 : 0);
    };
    const ValueId a = AddInput(g, feeds, "a", ta, s, zero(ta), rng);
    const ValueId b = AddInput(g, feeds, "b", tb, s, zero(tb), rng);
    // Multipliers as the compiler makes them (M0, M1 <= 1/2, M2 ~ 2^-20 x scale ratio), and
    // larger input ones (their rescaled inputs may saturate and their sum wrap, as defined).
    std::vector<int32_t> rq;
    for (int r = 0; r < 3; ++r) {
      rq.push_back(static_cast<int32_t>((1u << 30) + rng() % (1u << 30)));
      // Cases 24-29: input shifts 28-31 (multipliers up to 8), which the VNNI kernel's
      // int32-lane path leaves to its 64-bit one below 31; in the even ones a is the larger
      // scale (M = 2^30, shift 31: a multiplier of exactly 1/2, which that path takes).
      int32_t shift =
          r < 2 ? static_cast<int32_t>(32 + rng() % 3) : static_cast<int32_t>(50 + rng() % 4);
      if (r < 2 && i >= 24) shift = static_cast<int32_t>(28 + rng() % 4);
      if (r == 0 && i >= 24 && i % 2 == 0) {
        rq.back() = 1 << 30;
        shift = 31;
      }
      if (r == 1 && i >= 24 && i % 2 == 0) shift = static_cast<int32_t>(32 + rng() % 3);
      rq.push_back(shift);
    }
    const ValueId c = g.AddConstant("rq", DType::kI32, {3, 2}, ConstantBytes::Copy(rq.data(), 24));
    Value out;
    out.name = "y";
    out.quant.scales = {0.1f};
    out.quant.zero_points = {zero(ty)};
    const ValueId y = g.AddValue(out);
    Node node;
    node.name = "add";
    node.op = OpType::kQAdd;
    node.inputs = {a, b, c};
    node.outputs = {y};
    node.attrs.Set("out_dtype", std::string(DTypeName(ty)));
    if (i % 3 == 1) {
      node.attrs.Set("qmin", int64_t{ty == DType::kU8 ? 10 : -90});
      node.attrs.Set("qmax", int64_t{ty == DType::kU8 ? 200 : 100});
    }
    g.outputs().push_back(y);
    g.AddNode(std::move(node));
    ASSERT_TRUE(InferNode(g, 0).ok());
    ExpectBitExact(g, feeds, true, "QAdd n " + std::to_string(n));
  }
}

TEST(QEltwiseInt8, QAddBroadcastStaysReference) {
  std::mt19937 rng(3);
  Graph g;
  std::vector<HostTensor> feeds;
  const ValueId a = AddInput(g, feeds, "a", DType::kU8, {2, 3, 4}, 7, rng);
  const ValueId b = AddInput(g, feeds, "b", DType::kU8, {3, 1}, 9, rng);
  std::vector<int32_t> rq = {1 << 30, 33, 1 << 30, 33, 1 << 30, 52};
  const ValueId c = g.AddConstant("rq", DType::kI32, {3, 2}, ConstantBytes::Copy(rq.data(), 24));
  Value out;
  out.name = "y";
  out.quant.scales = {0.1f};
  out.quant.zero_points = {3};
  const ValueId y = g.AddValue(out);
  Node node;
  node.op = OpType::kQAdd;
  node.inputs = {a, b, c};
  node.outputs = {y};
  node.attrs.Set("out_dtype", std::string("u8"));
  g.outputs().push_back(y);
  g.AddNode(std::move(node));
  auto inferred = InferNode(g, 0);
  ASSERT_TRUE(inferred.ok()) << inferred.ToString();
  ExpectBitExact(g, feeds, false, "broadcast QAdd");
}

// QAdd of a tensor and an operand broadcast over runs of it (a per-channel bias: [N, C, H, W]
// + [N or 1, C, 1, 1], either order, a scalar), runs of at least 256 codes (byte maps through
// per-run tables), u8/i8 operands and outputs, the multipliers of QAddRandom, narrowed clamps;
// shorter runs, and an operand shared by the images of a batch (three broadcast axes), stay with
// the reference kernel. Every third case has the smaller operand a constant (tables at prepare).
TEST(QEltwiseInt8, QAddPerRunOperand) {
  std::mt19937 rng(41);
  const DType types[] = {DType::kU8, DType::kI8};
  struct Case {
    Shape a, b;
    bool fast;
  };
  const Case cases[] = {{{1, 24, 40, 41}, {1, 24, 1, 1}, true},
                        {{2, 5, 16, 16}, {2, 5, 1, 1}, true},
                        {{2, 3, 20, 30}, {1, 3, 1, 1}, false},
                        {{1, 3, 1, 1}, {1, 3, 20, 20}, true},
                        {{1, 4, 30, 30}, {1}, true},
                        {{1, 6, 10, 10}, {1, 6, 1, 1}, false}};
  int i = 0;
  for (const Case& k : cases) {
    for (int rep = 0; rep < 3; ++rep, ++i) {
      const DType ta = types[rng() % 2], tb = types[rng() % 2], ty = types[rng() % 2];
      Graph g;
      std::vector<HostTensor> feeds;
      const ValueId a = AddInput(g, feeds, "a", ta, k.a, RandomZero(rng, ta), rng);
      ValueId b = AddInput(g, feeds, "b", tb, k.b, RandomZero(rng, tb), rng);
      if (rep == 2 && NumElements(k.b) < NumElements(k.a)) {
        // A constant operand (a bias): the kernel makes every run's table at prepare.
        Value& fed = g.value(b);
        const QuantParams q = fed.quant;
        b = g.AddConstant(
            "b_const", tb, k.b,
            ConstantBytes::Copy(feeds.back().bytes.data(), feeds.back().bytes.size()));
        g.value(b).quant = q;
        g.inputs().pop_back();  // "b" is fed no more
        feeds.pop_back();
      }
      std::vector<int32_t> rq;
      for (int r = 0; r < 3; ++r) {
        const std::vector<int32_t> q = RandomRequant(rng, r < 2 ? 30 : 50, 4);
        rq.insert(rq.end(), q.begin(), q.end());
      }
      const ValueId c =
          g.AddConstant("rq", DType::kI32, {3, 2}, ConstantBytes::Copy(rq.data(), 24));
      Node node;
      node.name = "add";
      node.op = OpType::kQAdd;
      node.inputs = {a, b, c};
      node.attrs.Set("out_dtype", std::string(DTypeName(ty)));
      if (i % 3 == 1) {
        Narrow(node, ty == DType::kU8 ? 10 : -90, ty == DType::kU8 ? 200 : 100);
      }
      const Status inferred = FinishOneNode(g, std::move(node), RandomZero(rng, ty));
      ASSERT_TRUE(inferred.ok()) << inferred.ToString();
      ExpectBitExact(g, feeds, k.fast, "QAdd " + ShapeToString(k.a) + " + " + ShapeToString(k.b));
    }
  }
}

// Scales: a power of two (x * (1 / scale) exact), two that are not, a subnormal one with a
// normal reciprocal and one whose reciprocal overflows; inputs on, just above and just below
// (k + 0.5) * scale. The reference divides: a kernel that multiplied by the reciprocal instead
// fails here (tried: at 0.1, 0.0186584 and 3e-39).
TEST(QEltwiseInt8, QuantizeLinearEdgeValues) {
  std::mt19937 rng(5);
  for (const float scale : {0.25f, 0.0186584f, 0.1f, 3e-39f, 1e-40f}) {
    for (DType ty : {DType::kU8, DType::kI8}) {
      for (int64_t n : {int64_t{1}, int64_t{17}, int64_t{100}, int64_t{40001}}) {
        Graph g;
        Value xv;
        xv.name = "x";
        xv.dtype = DType::kF32;
        xv.shape = {n};
        xv.shape_known = true;
        const ValueId x = g.AddValue(xv);
        g.inputs().push_back(x);
        HostTensor h("x", DType::kF32, {n});
        float* f = reinterpret_cast<float*>(h.bytes.data());
        std::uniform_real_distribution<float> d(-300.f, 300.f);
        std::uniform_int_distribution<int> k(-300, 300);
        const float specials[] = {0.5f * scale,
                                  1.5f * scale,
                                  2.5f * scale,
                                  -0.5f * scale,
                                  -2.5f * scale,
                                  1e30f,
                                  -1e30f,
                                  std::numeric_limits<float>::infinity(),
                                  -std::numeric_limits<float>::infinity(),
                                  std::numeric_limits<float>::quiet_NaN()};
        constexpr float kInf = std::numeric_limits<float>::infinity();
        for (int64_t i = 0; i < n; ++i) {
          if (i % 5 == 0) {
            f[i] = specials[(i / 5) % 10];
          } else if (i % 5 == 1) {  // a half-integer multiple of the scale, or a neighbour
            const float tie = (static_cast<float>(k(rng)) + 0.5f) * scale;
            f[i] = i % 3 == 0 ? tie : std::nextafter(tie, i % 3 == 1 ? kInf : -kInf);
          } else if (i % 3 == 0) {
            f[i] = std::round(d(rng)) * 0.5f * scale;
          } else {
            f[i] = d(rng) * scale;
          }
        }
        const float sv = scale;
        const ValueId s = g.AddConstant("s", DType::kF32, {}, ConstantBytes::Copy(&sv, 4));
        const uint8_t zb = ty == DType::kU8 ? 100 : static_cast<uint8_t>(int8_t{-7});
        const ValueId z = g.AddConstant("z", ty, {}, ConstantBytes::Copy(&zb, 1));
        Value out;
        out.name = "y";
        const ValueId y = g.AddValue(out);
        Node node;
        node.op = OpType::kQuantizeLinear;
        node.inputs = {x, s, z};
        node.outputs = {y};
        g.outputs().push_back(y);
        g.AddNode(std::move(node));
        ASSERT_TRUE(InferNode(g, 0).ok());
        ExpectBitExact(g, {h}, true,
                       "QuantizeLinear scale " + std::to_string(scale) + " n " + std::to_string(n));
      }
    }
  }
}

TEST(QEltwiseInt8, MaxPoolOnCodes) {
  std::mt19937 rng(23);
  for (int i = 0; i < 16; ++i) {
    const DType t = i % 2 ? DType::kI8 : DType::kU8;
    const int64_t k = 1 + static_cast<int64_t>(rng() % 3), s = 1 + static_cast<int64_t>(rng() % 2);
    const int64_t pad = static_cast<int64_t>(rng() % static_cast<uint32_t>(k));
    const int64_t h = k + static_cast<int64_t>(rng() % 20),
                  w = k + static_cast<int64_t>(rng() % 40);
    Graph g;
    std::vector<HostTensor> feeds;
    const ValueId x = AddInput(g, feeds, "x", t, {1 + i % 2, 3, h, w}, 0, rng);
    Value out;
    out.name = "y";
    const ValueId y = g.AddValue(out);
    Node node;
    node.op = OpType::kMaxPool;
    node.inputs = {x};
    node.outputs = {y};
    node.attrs.Set("kernel_shape", std::vector<int64_t>{k, k + (i % 3 == 0)});
    node.attrs.Set("strides", std::vector<int64_t>{s, s});
    node.attrs.Set("pads", std::vector<int64_t>{pad, pad, pad, pad});
    if (i % 4 == 1) node.attrs.Set("ceil_mode", int64_t{1});  // SqueezeNet's pools
    g.outputs().push_back(y);
    g.AddNode(std::move(node));
    auto inferred = InferNode(g, 0);
    ASSERT_TRUE(inferred.ok()) << inferred.ToString();
    ExpectBitExact(g, feeds, true, "MaxPool k" + std::to_string(k) + " s" + std::to_string(s));
  }
}

// The max pools on flat planes: 3x3 at stride 1 with pads of 1 (planes 1x1, 1xN, Nx1, 2x2 up
// to 28x28) and at stride 2 on planes up to 32 wide with pads 0 and 1, ceil_mode (a last window
// of one row or column: its centre past the input) or not; 2x2 stride 2 tiling the plane, and
// odd planes that it does not tile; u8 and i8, batch 2.
TEST(QEltwiseInt8, MaxPoolFlatPlanes) {
  std::mt19937 rng(47);
  struct Case {
    int64_t h, w, stride, pad;
    bool ceil;
  };
  const Case cases[] = {{1, 1, 1, 1, false},   {1, 9, 1, 1, false},   {9, 1, 1, 1, false},
                        {2, 2, 1, 1, false},   {7, 7, 1, 1, false},   {14, 14, 1, 1, false},
                        {28, 28, 1, 1, false}, {5, 13, 1, 1, false},  {14, 14, 2, 0, true},
                        {14, 14, 2, 1, false}, {7, 7, 2, 0, true},    {28, 28, 2, 0, false},
                        {15, 9, 2, 1, true},   {32, 32, 2, 1, false}, {3, 3, 2, 0, true},
                        {6, 6, 2, 1, true},    {10, 8, 2, 1, true},   {1, 5, 2, 0, true}};
  int i = 0;
  for (const Case& k : cases) {
    for (DType t : {DType::kU8, DType::kI8}) {
      Graph g;
      std::vector<HostTensor> feeds;
      const ValueId x = AddInput(g, feeds, "x", t, {1 + i++ % 2, 5, k.h, k.w}, 0, rng);
      Node node;
      node.op = OpType::kMaxPool;
      node.inputs = {x};
      node.attrs.Set("kernel_shape", std::vector<int64_t>{3, 3});
      node.attrs.Set("strides", std::vector<int64_t>{k.stride, k.stride});
      node.attrs.Set("pads", std::vector<int64_t>{k.pad, k.pad, k.pad, k.pad});
      if (k.ceil) node.attrs.Set("ceil_mode", int64_t{1});
      const Status inferred = FinishOneNode(g, std::move(node), std::nullopt);
      if (!inferred.ok()) continue;  // a window shape ONNX has no output for
      ExpectBitExact(g, feeds, true,
                     "MaxPool 3x3 s" + std::to_string(k.stride) + " on " + std::to_string(k.h) +
                         "x" + std::to_string(k.w));
    }
  }
  // 2x2 stride 2 tiling the plane (flat row pairs), and odd sizes that do not tile it.
  for (const auto& [h, w] :
       {std::pair<int64_t, int64_t>{28, 28}, {2, 2}, {14, 6}, {7, 7}, {6, 9}}) {
    for (DType t : {DType::kU8, DType::kI8}) {
      Graph g;
      std::vector<HostTensor> feeds;
      const ValueId x = AddInput(g, feeds, "x", t, {2, 3, h, w}, 0, rng);
      Node node;
      node.op = OpType::kMaxPool;
      node.inputs = {x};
      node.attrs.Set("kernel_shape", std::vector<int64_t>{2, 2});
      node.attrs.Set("strides", std::vector<int64_t>{2, 2});
      const Status inferred = FinishOneNode(g, std::move(node), std::nullopt);
      ASSERT_TRUE(inferred.ok()) << inferred.ToString();
      ExpectBitExact(g, feeds, true,
                     "MaxPool 2x2 s2 on " + std::to_string(h) + "x" + std::to_string(w));
    }
  }
}

// QGlobalAveragePool on 8-bit codes: planes from 1 code to 4096 (past the SWAR sum's flush
// every 128 words), u8/i8 inputs and outputs with random zero points, requantization multipliers
// and shifts, narrowed clamps; a large enough map to split over two threads.
TEST(QEltwiseInt8, GlobalAveragePoolOnCodes) {
  std::mt19937 rng(29);
  for (int i = 0; i < 14; ++i) {
    const DType t = i % 2 ? DType::kI8 : DType::kU8;
    const DType out_t = i % 3 == 1 ? DType::kI8 : DType::kU8;
    // Case 13: 64x64 planes, 512 words: 16-bit lanes left unflushed would wrap.
    const int64_t h = i == 0 ? 1 : i == 13 ? 64 : 1 + static_cast<int64_t>(rng() % 40);
    const int64_t w = i == 13 ? 64 : 1 + static_cast<int64_t>(rng() % 40);
    const int64_t c = i == 12 ? 1280 : 1 + static_cast<int64_t>(rng() % 40);
    Graph g;
    std::vector<HostTensor> feeds;
    const int32_t zx = static_cast<int32_t>(rng() % 256) - (t == DType::kI8 ? 128 : 0);
    const ValueId x = AddInput(g, feeds, "x", t, {1 + i % 2, c, h, w}, zx, rng);
    const int32_t rq[2] = {static_cast<int32_t>((1u << 30) + rng() % (1u << 30)),
                           static_cast<int32_t>(36 + rng() % 12)};
    const ValueId r = g.AddConstant("rq", DType::kI32, {1, 2}, ConstantBytes::Copy(rq, 8));
    Value out;
    out.name = "y";
    out.quant.scales = {0.05f};
    out.quant.zero_points = {static_cast<int32_t>(rng() % 256) - (out_t == DType::kI8 ? 128 : 0)};
    const ValueId y = g.AddValue(out);
    Node node;
    node.op = OpType::kQGlobalAveragePool;
    node.inputs = {x, r};
    node.outputs = {y};
    node.attrs.Set("out_dtype", std::string(DTypeName(out_t)));
    if (i % 4 == 3) {
      node.attrs.Set("qmin", int64_t{out_t == DType::kU8 ? 10 : -100});
      node.attrs.Set("qmax", int64_t{out_t == DType::kU8 ? 200 : 90});
    }
    g.outputs().push_back(y);
    g.AddNode(std::move(node));
    auto inferred = InferNode(g, 0);
    ASSERT_TRUE(inferred.ok()) << inferred.ToString();
    ExpectBitExact(g, feeds, true,
                   "QGlobalAveragePool " + std::to_string(c) + "x" + std::to_string(h) + "x" +
                       std::to_string(w));
  }
}

// QAveragePool of 8-bit codes: windows inside the input (2x2 stride 2 on even and odd planes,
// 3x3 stride 1 and 2, 4x4 = 16 taps, 1x3, 2x1) through the fast kernel's sum tables; padded
// windows (count_include_pad either way), ceil_mode windows past the input and a 5x5 window
// (25 taps), which the reference kernel keeps; u8/i8 in and out, narrowed clamps, batch 2.
TEST(QEltwiseInt8, AveragePoolOnCodes) {
  std::mt19937 rng(43);
  struct Case {
    int64_t h, w, kh, kw, stride, pad;
    bool ceil, include_pad;
  };
  const Case cases[] = {{56, 56, 2, 2, 2, 0, false, false}, {13, 15, 2, 2, 2, 0, false, false},
                        {9, 11, 3, 3, 1, 0, false, false},  {17, 12, 3, 3, 2, 0, false, true},
                        {12, 20, 4, 4, 4, 0, false, false}, {5, 40, 1, 3, 1, 0, false, false},
                        {8, 3, 2, 1, 2, 0, false, false},   {9, 9, 3, 3, 1, 1, false, false},
                        {9, 9, 3, 3, 2, 1, false, true},    {7, 7, 2, 2, 2, 0, true, false},
                        {12, 12, 5, 5, 1, 0, false, false}};
  int i = 0;
  for (const Case& k : cases) {
    for (int rep = 0; rep < 2; ++rep, ++i) {
      const DType t = i % 2 ? DType::kI8 : DType::kU8;
      const DType out_t = i % 3 == 1 ? DType::kI8 : DType::kU8;
      Graph g;
      std::vector<HostTensor> feeds;
      const ValueId x =
          AddInput(g, feeds, "x", t, {1 + rep, 3 + i % 5, k.h, k.w}, RandomZero(rng, t), rng);
      std::vector<int32_t> rq;
      for (int64_t c = 1; c <= k.kh * k.kw; ++c) {
        const std::vector<int32_t> r = RandomRequant(rng, 30, 4);
        rq.insert(rq.end(), r.begin(), r.end());
      }
      const ValueId r = g.AddConstant("rq", DType::kI32, {k.kh * k.kw, 2},
                                      ConstantBytes::Copy(rq.data(), rq.size() * 4));
      Node node;
      node.op = OpType::kQAveragePool;
      node.inputs = {x, r};
      node.attrs.Set("kernel_shape", std::vector<int64_t>{k.kh, k.kw});
      node.attrs.Set("strides", std::vector<int64_t>{k.stride, k.stride});
      node.attrs.Set("pads", std::vector<int64_t>{k.pad, k.pad, k.pad, k.pad});
      node.attrs.Set("ceil_mode", int64_t{k.ceil});
      node.attrs.Set("count_include_pad", int64_t{k.include_pad});
      node.attrs.Set("out_dtype", std::string(DTypeName(out_t)));
      if (i % 4 == 3) {
        Narrow(node, out_t == DType::kU8 ? 10 : -100, out_t == DType::kU8 ? 200 : 90);
      }
      const Status inferred = FinishOneNode(g, std::move(node), RandomZero(rng, out_t), 0.05f);
      ASSERT_TRUE(inferred.ok()) << inferred.ToString();
      ExpectBitExact(g, feeds, true,
                     "QAveragePool " + std::to_string(k.h) + "x" + std::to_string(k.w) + " k" +
                         std::to_string(k.kh) + "x" + std::to_string(k.kw));
    }
  }
}

// QMul of a tensor by a factor broadcast over runs of it (squeeze-excite: [N, C, H, W] x
// [N or 1, C, 1, 1], either operand order, and a scalar factor), u8/i8 operands and outputs,
// shifts 29-40 (both epilogue forms), narrowed clamps, runs from 16 to 5000 elements with
// vector tails; runs shorter than 16 and same-shaped operands, which the reference kernel
// keeps, for their results.
TEST(QEltwiseInt8, QMulPerRunFactor) {
  std::mt19937 rng(29);
  const DType types[] = {DType::kU8, DType::kI8};
  struct Case {
    Shape a, b;
    bool fast;
  };
  const Case cases[] = {{{1, 8, 7, 7}, {1, 8, 1, 1}, true},    {{1, 5, 56, 57}, {1, 5, 1, 1}, true},
                        {{2, 6, 4, 4}, {2, 6, 1, 1}, true},    {{2, 6, 9, 3}, {1, 6, 1, 1}, true},
                        {{1, 3, 1, 1}, {1, 3, 40, 41}, true},  {{1, 4, 16, 30}, {1, 1, 1, 1}, true},
                        {{1, 16, 2, 2}, {1, 16, 1, 1}, true},  {{1, 24, 5000}, {1, 24, 1}, true},
                        {{1, 6, 3, 3}, {1, 6, 1, 1}, true},    {{1, 6, 5, 5}, {1, 6, 5, 5}, true},
                        {{1, 3, 130, 2}, {1, 3, 130, 1}, true}};
  for (int i = 0; i < 3 * static_cast<int>(std::size(cases)); ++i) {
    const Case& k = cases[i % std::size(cases)];
    const DType ta = types[rng() % 2], tb = types[rng() % 2], ty = types[rng() % 2];
    Graph g;
    std::vector<HostTensor> feeds;
    const ValueId a = AddInput(g, feeds, "a", ta, k.a, RandomZero(rng, ta), rng);
    const ValueId b = AddInput(g, feeds, "b", tb, k.b, RandomZero(rng, tb), rng);
    // Products up to 2^16 against scales near s_a s_b / s_y: shifts 29-40.
    const std::vector<int32_t> rq = RandomRequant(rng, 29, 12);
    const ValueId c = g.AddConstant("rq", DType::kI32, {1, 2}, ConstantBytes::Copy(rq.data(), 8));
    Node node;
    node.name = "mul";
    node.op = OpType::kQMul;
    node.inputs = {a, b, c};
    node.attrs.Set("out_dtype", std::string(DTypeName(ty)));
    if (i % 3 == 2) {
      Narrow(node, ty == DType::kU8 ? 10 : -90, ty == DType::kU8 ? 200 : 100);
    }
    const Status inferred = FinishOneNode(g, std::move(node), RandomZero(rng, ty));
    ASSERT_TRUE(inferred.ok()) << inferred.ToString();
    ExpectBitExact(g, feeds, k.fast, "QMul " + ShapeToString(k.a) + " x " + ShapeToString(k.b));
  }
}

// QLookup of 8-bit codes through a random table of 8-bit codes: u8/i8 in and out, sizes with
// tails and several shares.
TEST(QEltwiseInt8, QLookupRandomTables) {
  std::mt19937 rng(31);
  const DType types[] = {DType::kU8, DType::kI8};
  for (int i = 0; i < 12; ++i) {
    const int64_t n = 1 + static_cast<int64_t>(rng() % (i < 8 ? 300 : 70000));
    const DType tx = types[i % 2], ty = types[i / 2 % 2];
    Graph g;
    std::vector<HostTensor> feeds;
    const ValueId x = AddInput(g, feeds, "x", tx, {1, n}, RandomZero(rng, tx), rng);
    std::vector<uint8_t> table(256);
    for (auto& e : table) e = static_cast<uint8_t>(rng());
    const ValueId t = g.AddConstant("t", ty, {256}, ConstantBytes::Copy(table.data(), 256));
    Node node;
    node.name = "lookup";
    node.op = OpType::kQLookup;
    node.inputs = {x, t};
    const Status inferred = FinishOneNode(g, std::move(node), RandomZero(rng, ty));
    ASSERT_TRUE(inferred.ok()) << inferred.ToString();
    ExpectBitExact(g, feeds, true, "QLookup n " + std::to_string(n));
  }
}

// QConcat of 2-4 inputs of mixed u8/i8 codes along every axis, some inputs already in the
// output's parameters (copied), sizes whose shares split runs; batch 2.
TEST(QEltwiseInt8, QConcatRequantizesOrCopies) {
  std::mt19937 rng(37);
  const DType types[] = {DType::kU8, DType::kI8};
  for (int i = 0; i < 16; ++i) {
    const int inputs = 2 + i % 3;
    const int64_t axis = i % 4;
    const bool large = i >= 12;
    Shape base = {1 + i % 2, large ? 24 : 3, large ? 40 : 5, large ? 41 : 7};
    const DType ty = types[rng() % 2];
    const int32_t zy = RandomZero(rng, ty);
    Graph g;
    std::vector<HostTensor> feeds;
    std::vector<ValueId> ins;
    std::vector<int32_t> rq;
    for (int k = 0; k < inputs; ++k) {
      Shape s = base;
      s[static_cast<size_t>(axis)] = 1 + static_cast<int64_t>(rng() % 4);
      const bool same = k == 1;  // in the output's parameters: copied
      const DType tx = same ? ty : types[rng() % 2];
      ins.push_back(
          AddInput(g, feeds, "x" + std::to_string(k), tx, s, same ? zy : RandomZero(rng, tx), rng));
      const std::vector<int32_t> r =
          same ? std::vector<int32_t>{1 << 30, 30} : RandomRequant(rng, 29, 4);
      rq.insert(rq.end(), r.begin(), r.end());
    }
    ins.push_back(g.AddConstant("rq", DType::kI32, {inputs, 2},
                                ConstantBytes::Copy(rq.data(), rq.size() * 4)));
    Node node;
    node.name = "concat";
    node.op = OpType::kQConcat;
    node.inputs = ins;
    node.attrs.Set("axis", axis);
    node.attrs.Set("out_dtype", std::string(DTypeName(ty)));
    const Status inferred = FinishOneNode(g, std::move(node), zy);
    ASSERT_TRUE(inferred.ok()) << i << inferred.ToString();
    ExpectBitExact(g, feeds, true, "QConcat case " + std::to_string(i));
  }
}

}  // namespace
}  // namespace kiln
