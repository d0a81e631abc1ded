// The int8 QConv kernels (GEMM over kI8O8K4 weights, depthwise over plain ones) against the
// integer reference kernel, bit for bit, at every int8 flavour this CPU runs (portable, AVX2,
// AVX-512 VNNI) with 1 and 2 threads: random geometries (1x1, 3x3 stride 1 and 2, 5x5/7x7,
// odd sizes, pads, dilations, groups, depthwise, batch 2, 1-D), u8 and i8 activations and
// weights, random activation and per-channel weight zero points, per-channel requantization,
// residual inputs, u8/i8/i32 outputs and narrowed clamps. Also the layout's round trip.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <random>

#include "backends/cpu/tables/int8_table.h"
#include "ir/layout.h"
#include "ir/op_schema.h"
#include "kernels/cpu_features.h"
#include "runtime/session.h"

namespace kiln {
namespace {

struct QCase {
  int64_t n = 1, c = 8, h = 9, w = 9, m = 16, kh = 3, kw = 3;
  int64_t stride = 1, pad = 1, dilation = 1, group = 1;
  DType x = DType::kU8, w_type = DType::kI8, out = DType::kU8;
  bool w_zero = false;  // nonzero weight zero points
  bool residual = false;
  bool narrow = false;  // a folded Relu/Clip: qmin/qmax inside the type's range
  bool one_d = false;
  bool low_shift = false;  // requantization shifts 29-34 (scales near 1: the 64-bit path)
  // Residual shifts 1-12 (terms up to 255 x 2^30: saturated to int32 below 8) and biases
  // 2^23 from the int32 limits (taps x 255 x 128 must stay below that): the residual's
  // addition saturates.
  bool saturating = false;
  // 2-D only: the height's own stride (0: `stride`) and explicit pads, ONNX's order (top,
  // left, bottom, right; empty: pad, pad + (stride > 1), pad, pad).
  int64_t stride_h = 0;
  std::vector<int64_t> pads;
};

std::string Describe(const QCase& q) {
  return "n" + std::to_string(q.n) + " c" + std::to_string(q.c) + " " + std::to_string(q.h) + "x" +
         std::to_string(q.w) + " m" + std::to_string(q.m) + " k" + std::to_string(q.kh) + "x" +
         std::to_string(q.kw) + " s" + std::to_string(q.stride) + " p" + std::to_string(q.pad) +
         " d" + std::to_string(q.dilation) + " g" + std::to_string(q.group) + " x " +
         std::string(DTypeName(q.x)) + " w " + std::string(DTypeName(q.w_type)) + " out " +
         std::string(DTypeName(q.out)) + (q.w_zero ? " wzero" : "") +
         (q.residual ? " residual" : "") + (q.narrow ? " narrow" : "") + (q.one_d ? " 1d" : "") +
         (q.low_shift ? " low-shift" : "") + (q.saturating ? " saturating" : "") +
         (q.stride_h ? " stride_h " + std::to_string(q.stride_h) : "") +
         (q.pads.empty() ? ""
                         : " pads " + std::to_string(q.pads[0]) + "," + std::to_string(q.pads[1]) +
                               "," + std::to_string(q.pads[2]) + "," + std::to_string(q.pads[3]));
}

int32_t RandomCode(std::mt19937& rng, DType t) {
  return t == DType::kU8 ? static_cast<int32_t>(rng() % 256)
                         : static_cast<int32_t>(rng() % 256) - 128;
}

std::vector<uint8_t> RandomCodes(std::mt19937& rng, DType t, int64_t n) {
  std::vector<uint8_t> v(static_cast<size_t>(n));
  for (auto& b : v) b = static_cast<uint8_t>(RandomCode(rng, t));
  return v;
}

// A plain-weight graph of one QConv, its feeds, and the same graph with weights in kI8O8K4.
struct QGraphs {
  Graph plain, packed;
  std::vector<HostTensor> feeds;
};

QGraphs Build(const QCase& q, uint32_t seed) {
  std::mt19937 rng(seed);
  Graph g;
  EXPECT_FALSE(q.residual && q.out == DType::kI32) << "an i32 output takes no residual";
  const Shape xs = q.one_d ? Shape{q.n, q.c, q.w} : Shape{q.n, q.c, q.h, q.w};
  const Shape ws =
      q.one_d ? Shape{q.m, q.c / q.group, q.kw} : Shape{q.m, q.c / q.group, q.kh, q.kw};
  std::vector<HostTensor> feeds;
  auto add_input = [&](const std::string& name, DType t, const Shape& s, int32_t zero) {
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
    const auto codes = RandomCodes(rng, t, NumElements(s));
    std::memcpy(h.bytes.data(), codes.data(), codes.size());
    feeds.push_back(std::move(h));
    return id;
  };
  const ValueId x = add_input("x", q.x, xs, RandomCode(rng, q.x));
  const auto wcodes = RandomCodes(rng, q.w_type, NumElements(ws));
  const ValueId w =
      g.AddConstant("w", q.w_type, ws, ConstantBytes::Copy(wcodes.data(), wcodes.size()));
  g.value(w).quant.axis = 0;
  for (int64_t o = 0; o < q.m; ++o) {
    g.value(w).quant.scales.push_back(0.01f);
    g.value(w).quant.zero_points.push_back(q.w_zero ? RandomCode(rng, q.w_type) : 0);
  }
  std::vector<int32_t> bias(static_cast<size_t>(q.m));
  for (auto& b : bias) b = static_cast<int32_t>(rng() % 200001) - 100000;
  if (q.saturating) {
    // 2^23 to 2^23 + 2^21 from the limits: the accumulation itself stays inside int32 (the
    // QConv contract; the reference's int32 sums would overflow), the residual's addition
    // does not.
    for (auto& b : bias) {
      const auto near = static_cast<int32_t>((1u << 23) + rng() % (1u << 21));
      b = rng() % 2 ? std::numeric_limits<int32_t>::max() - near
                    : std::numeric_limits<int32_t>::min() + near;
    }
  }
  const ValueId b =
      g.AddConstant("b", DType::kI32, {q.m}, ConstantBytes::Copy(bias.data(), bias.size() * 4));
  // Multipliers that spread the accumulators over the output range: about 1 / (128 sqrt(K)).
  const int64_t k = q.c / q.group * q.kh * q.kw;
  int shift = 31 + 7;
  for (int64_t s = 1; s * s < k; s *= 2) ++shift;
  if (q.low_shift) shift = 30 + static_cast<int>(rng() % 4);  // 29-34 with the spread below
  std::vector<int32_t> rq, rrq;
  for (int64_t o = 0; o < q.m; ++o) {
    rq.push_back(static_cast<int32_t>((1u << 30) + rng() % (1u << 30)));
    rq.push_back(shift - 1 + static_cast<int32_t>(rng() % 3));
    rrq.push_back(static_cast<int32_t>((1u << 30) + rng() % (1u << 30)));
    // The residual 2^-4 to 2^11 times its codes: shifts 20-35, both sides of the SIMD
    // epilogues' switch between the 64-bit and the high-half forms at 33.
    rrq.push_back(static_cast<int32_t>(20 + rng() % 16));
    if (q.saturating) rrq.back() = static_cast<int32_t>(1 + rng() % 12);
  }
  Node node;
  node.name = "qconv";
  node.op = OpType::kQConv;
  node.attrs.Set("group", q.group);
  const auto two = [&](int64_t v) {
    return q.one_d ? std::vector<int64_t>{v} : std::vector<int64_t>{v, v};
  };
  const int64_t stride_h = q.stride_h ? q.stride_h : q.stride;
  node.attrs.Set("strides", q.one_d ? two(q.stride) : std::vector<int64_t>{stride_h, q.stride});
  node.attrs.Set("dilations", two(q.dilation));
  // Pads (top, left, bottom, right).
  const std::vector<int64_t> pads =
      !q.pads.empty() ? q.pads : std::vector<int64_t>{q.pad, q.pad + (q.stride > 1), q.pad, q.pad};
  node.attrs.Set("pads", q.one_d ? std::vector<int64_t>{q.pad, q.pad} : pads);
  node.attrs.Set("out_dtype", std::string(DTypeName(q.out)));
  if (q.narrow) {
    node.attrs.Set("qmin", int64_t{q.out == DType::kU8 ? 20 : q.out == DType::kI8 ? -100 : -5000});
    node.attrs.Set("qmax", int64_t{q.out == DType::kU8 ? 230 : q.out == DType::kI8 ? 90 : 5000});
  }
  // The output shape (ONNX Conv arithmetic), to size the residual.
  const auto out_dim = [&](int64_t in, int64_t k, int64_t pad_sum, int64_t stride) {
    return (in + pad_sum - ((k - 1) * q.dilation + 1)) / stride + 1;
  };
  const Shape ys = q.one_d ? Shape{q.n, q.m, out_dim(q.w, q.kw, 2 * q.pad, q.stride)}
                           : Shape{q.n, q.m, out_dim(q.h, q.kh, pads[0] + pads[2], stride_h),
                                   out_dim(q.w, q.kw, pads[1] + pads[3], q.stride)};
  Value out;
  out.name = "y";
  out.quant.scales = {0.1f};
  out.quant.zero_points = {q.out == DType::kI32 ? 0 : RandomCode(rng, q.out)};
  const ValueId y = g.AddValue(out);
  node.outputs = {y};
  const DType rt = q.x == DType::kU8 ? DType::kI8 : DType::kU8;  // the other 8-bit type
  const ValueId r = q.residual ? add_input("r", rt, ys, RandomCode(rng, rt)) : kNoValue;
  const ValueId rqv = q.out == DType::kI32
                          ? kNoValue
                          : g.AddConstant("rq", DType::kI32, {q.m, 2},
                                          ConstantBytes::Copy(rq.data(), rq.size() * 4));
  node.inputs = {x, w, b, r, rqv};
  if (q.residual) {
    node.inputs.push_back(g.AddConstant("rrq", DType::kI32, {q.m, 2},
                                        ConstantBytes::Copy(rrq.data(), rrq.size() * 4)));
  }
  while (node.inputs.back() == kNoValue) node.inputs.pop_back();
  g.outputs().push_back(y);
  g.AddNode(std::move(node));
  EXPECT_TRUE(InferNode(g, 0).ok());
  QGraphs out_graphs;
  out_graphs.plain = g;
  out_graphs.packed = g;
  Value& wv = out_graphs.packed.value(w);
  auto packed =
      PackLayout(Layout::kI8O8K4, wv.dtype, wv.shape, wv.constant->data(), wv.constant->size());
  EXPECT_TRUE(packed.ok()) << packed.status().ToString();
  wv.constant = ConstantBytes::FromVector(std::move(packed).value());
  wv.layout = Layout::kI8O8K4;
  out_graphs.feeds = std::move(feeds);
  return out_graphs;
}

Expected<std::vector<HostTensor>> RunAt(const Graph& g, const std::vector<HostTensor>& feeds,
                                        Isa isa, int threads) {
  SessionOptions so;
  so.cpu_max_isa = isa;
  so.num_threads = threads;
  KILN_ASSIGN_OR_RETURN(auto session, Session::Create(std::make_shared<const Graph>(g), so));
  return session->Run(feeds);
}

void Check(const QCase& q, uint32_t seed) {
  SCOPED_TRACE(Describe(q) + " seed " + std::to_string(seed));
  const QGraphs gs = Build(q, seed);
  if (::testing::Test::HasFailure()) return;
  auto want = RunAt(gs.plain, gs.feeds, Isa::kReference, 1);
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  // The oracle also reads the packed file (unpacking it): the same bytes.
  auto want_packed = RunAt(gs.packed, gs.feeds, Isa::kReference, 1);
  ASSERT_TRUE(want_packed.ok()) << want_packed.status().ToString();
  EXPECT_EQ((*want_packed)[0].bytes, (*want)[0].bytes);
  const bool depthwise = q.group == q.c && q.group == q.m && q.group > 1;
  const bool split = !depthwise && q.group > 1 && (q.m / q.group) % 8 != 0;
  const Graph& g = depthwise ? gs.plain : gs.packed;
  for (const cpu::Int8Kernels* k : cpu::AvailableInt8Kernels()) {
    const auto* entry = KernelRegistry::Global().FindEntry(g, g.node(0), kExecutorCpu, k->isa);
    ASSERT_NE(entry, nullptr);
    EXPECT_EQ(entry->key.isa, split ? Isa::kReference : k->isa) << cpu::IsaName(k->isa);
    for (int threads : {1, 2}) {
      auto got = RunAt(g, gs.feeds, k->isa, threads);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const auto& a = (*got)[0].bytes;
      const auto& b = (*want)[0].bytes;
      ASSERT_EQ(a.size(), b.size());
      size_t bad = 0, first = 0;
      for (size_t i = 0; i < a.size(); ++i) {
        if (a[i] != b[i] && bad++ == 0) first = i;
      }
      EXPECT_EQ(bad, 0u) << cpu::IsaName(k->isa) << " threads " << threads << ": " << bad << " of "
                         << a.size() << " bytes differ, first at byte " << first << " (got "
                         << int(a[first]) << " want " << int(b[first]) << ")";
    }
  }
}

TEST(QConvInt8, HandPickedShapes) {
  uint32_t seed = 1;
  QCase q;
  Check(q, seed++);  // 3x3 s1 p1, u8 x, i8 w
  q.kh = q.kw = 1;
  q.pad = 0;
  Check(q, seed++);  // pointwise
  q.c = 13;
  q.m = 21;
  q.h = 7;
  q.w = 11;
  Check(q, seed++);  // odd channels (K padding, a partial panel)
  q = QCase{};
  q.stride = 2;
  q.h = q.w = 15;
  Check(q, seed++);  // gather path
  q = QCase{};
  q.c = q.m = q.group = 24;
  Check(q, seed++);  // depthwise 3x3
  q.stride = 2;
  Check(q, seed++);
  q.kh = q.kw = 5;
  q.pad = 2;
  q.dilation = 2;
  Check(q, seed++);
  q = QCase{};
  q.c = 16;
  q.m = 32;
  q.group = 2;
  Check(q, seed++);  // grouped, 16 channels per group
  q.m = 12;
  Check(q, seed++);  // groups split a panel: the reference keeps it
  q = QCase{};
  q.x = DType::kI8;
  q.w_type = DType::kU8;
  q.w_zero = true;
  q.residual = true;
  q.out = DType::kI8;
  Check(q, seed++);
  q.out = DType::kI32;
  q.residual = false;
  Check(q, seed++);
  q.narrow = true;
  Check(q, seed++);
  q = QCase{};
  q.one_d = true;
  q.w = 40;
  q.kw = 5;
  q.pad = 2;
  Check(q, seed++);
  q = QCase{};
  q.n = 2;
  q.c = 64;
  q.m = 40;
  q.h = q.w = 14;
  q.residual = true;
  Check(q, seed++);  // batch 2, several tiles and panels
  q.kh = q.kw = 1;
  q.pad = 0;
  Check(q, seed++);  // pointwise with a residual (epilogue fused into the GEMM)
  q.x = DType::kI8;
  q.w_type = DType::kU8;
  q.w_zero = true;
  q.out = DType::kI8;
  Check(q, seed++);
  q.h = q.w = 1;
  q.residual = false;
  Check(q, seed++);  // one pixel: the matrix-vector path
  q = QCase{};
  q.c = 24;
  q.h = q.w = 13;
  q.kh = q.kw = 1;
  q.pad = 0;
  q.residual = true;
  Check(q, seed++);  // pointwise on 13x13: 169 columns end in a tile of 9 (AVX2: 16 + ...)
  q.residual = false;
  q.narrow = true;
  Check(q, seed++);
}

// Pointwise layers on planes of a few tiles (7x7: 32 + 17 columns), whose output channels
// are split among the threads too: each thread interleaves its own copy of the columns
// (columns_per_share_ with several chunks), with and without a residual, batch 2; then
// reductions whose columns pass 24 KiB, which the threads interleave a share of channel quads
// each before the products (a partial last quad, batch 2, a residual).
TEST(QConvInt8, PointwiseSmallPlanesSplitChannels) {
  uint32_t seed = 7200;
  QCase q;
  q.c = 96;
  q.m = 40;
  q.h = q.w = 7;
  q.kh = q.kw = 1;
  q.pad = 0;
  Check(q, seed++);
  q.residual = true;
  Check(q, seed++);
  q.n = 2;
  q.h = q.w = 5;
  q.m = 24;
  Check(q, seed++);
  q = QCase{};
  q.kh = q.kw = 1;
  q.pad = 0;
  q.c = 400;
  q.m = 40;
  q.h = q.w = 7;
  Check(q, seed++);
  q.c = 131;
  q.m = 24;
  q.h = q.w = 14;
  q.n = 2;
  q.residual = true;
  q.x = DType::kI8;
  Check(q, seed++);
}

// Residual terms that saturate to int32 and sums that saturate when they are added
// (SaturatingAdd): pointwise layers (the GEMM tile's epilogue, whole and edge tiles) and a
// 3x3 one (the row epilogue), u8 and i8 outputs, at every ISA.
TEST(QConvInt8, ResidualSaturates) {
  uint32_t seed = 7100;
  QCase q;
  q.c = 24;
  q.m = 20;
  q.h = q.w = 11;
  q.residual = true;
  q.saturating = true;
  Check(q, seed++);
  q.kh = q.kw = 1;
  q.pad = 0;
  Check(q, seed++);
  q.x = DType::kI8;
  q.out = DType::kI8;
  q.h = q.w = 13;
  Check(q, seed++);
}

// A depthwise case: c channels, a kh x kw window with `pad` on every side, an h x w input.
QCase Depthwise(int64_t c, int64_t kh, int64_t kw, int64_t pad, int64_t h, int64_t w) {
  QCase q;
  q.c = q.m = q.group = c;
  q.kh = kh;
  q.kw = kw;
  q.pad = pad;
  q.h = h;
  q.w = w;
  return q;
}

// The 8-bit depthwise path (Int8Kernels::dw_u8, where the CPU has VBMI), which takes the layers
// with a residual or an int32 output whose centred weights fit s8 (the others go to the
// channel-lanes path, DepthwiseChannelLanes): planes wider than a vector, 7x7 outputs, stride
// 2, 5x5 and 7x7 windows (two weight quads per row), rectangular windows, i8 and u8 inputs
// with zero points, narrow and i32 outputs; and u8 weights with zero points, whose centred
// values leave s8 (the int16 path takes those). Every 8-bit-output case runs with and without
// a residual, so each geometry reaches this path.
TEST(QConvInt8, DepthwiseFromCodes) {
  uint32_t seed = 500;
  const auto check = [&seed](QCase q) {
    Check(q, seed++);
    if (q.out != DType::kI32 && !q.residual && !::testing::Test::HasFatalFailure()) {
      q.residual = true;
      Check(q, seed++);
    }
  };
  QCase q = Depthwise(40, 3, 3, 1, 35, 35);
  check(q);  // 3x3 s1, 35 columns: two full vectors and a tail
  q.stride = 2;
  q.h = q.w = 14;
  q.x = DType::kI8;
  q.residual = true;
  q.out = DType::kI8;
  check(q);  // 14x14 -> 7x7, i8 codes, residual
  q.kh = q.kw = 5;
  q.pad = 2;
  q.residual = false;
  q.narrow = true;
  check(q);  // 5x5 s2: two quads per window row
  q.stride = 1;
  q.kh = q.kw = 7;
  q.pad = 3;
  q.h = q.w = 9;
  q.out = DType::kI32;
  q.narrow = false;
  check(q);  // 7x7 s1
  q = Depthwise(16, 1, 5, 1, 3, 40);
  check(q);  // 1x5 window
  q.w_type = DType::kU8;
  q.w_zero = true;
  check(q);  // u8 weights with zero points
}

// The int16-plane depthwise path (QDwAccumulateFn: every depthwise layer of the AVX2 and
// portable tables; in the VNNI table the layers with a residual or an int32 output that the
// 8-bit path does not take): output widths on both sides of its lane packings (4 rows of up to
// 8 columns, 2 rows of up to 16, then 32-column runs with a tail), heights that leave a partial
// group of rows, taps in pairs with an odd one left over (3x3, 5x5, 7x7 = 49, 1x4), stride 2
// and dilation 2. Each width runs with and without a residual: without one the VNNI table
// takes the channel-lanes path (DepthwiseChannelLanes), so the residual keeps it on this one.
TEST(QConvInt8, DepthwiseInt16Planes) {
  uint32_t seed = 700;
  const int64_t widths[] = {5, 8, 9, 16, 17, 32, 33, 70};
  for (int64_t w : widths) {
    for (bool residual : {false, true}) {
      QCase q = Depthwise(5, 3, 3, 1, 7 + w % 3, w);
      q.w_type = w % 2 ? DType::kU8 : DType::kI8;
      q.w_zero = w % 2 == 1;
      q.x = w % 4 < 2 ? DType::kU8 : DType::kI8;
      q.residual = residual;
      Check(q, seed++);  // 3x3 s1 p1: out_w = w
      if (::testing::Test::HasFatalFailure()) return;
      q.stride = 2;
      q.h = q.w = 2 * w + 1;
      Check(q, seed++);  // 3x3 s2: out_w = w + 1 (stride-2 column phases)
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  QCase q = Depthwise(6, 7, 7, 3, 11, 13);
  q.w_type = DType::kU8;
  q.w_zero = true;
  q.out = DType::kI32;
  Check(q, seed++);  // 49 taps
  q.kh = q.kw = 5;
  q.pad = 4;
  q.dilation = 2;
  q.w = 40;
  q.out = DType::kU8;
  q.residual = true;
  Check(q, seed++);  // 5x5 dilation 2
  q = Depthwise(3, 1, 4, 0, 5, 37);
  q.narrow = true;
  Check(q, seed++);  // 1x4: two pairs, no odd tap
}

// The channel-lanes depthwise path (Int8Kernels::dw_lanes: 16 channels per call, no residual,
// 8-bit output): channel counts that leave a partial block
// (1, 5, 17, 40) or fill blocks (16, 32), planes smaller than one 16-pixel transpose and
// planes whose rows break inside one, stride 2, 5x5 windows and dilation 2, two images, i8 and
// u8 codes, u8 weights with zero points, narrowed clamps, and requantization shifts that are
// all >= 33 (the int32 epilogue) or mixed (the 64-bit one); then large planes, in bands.
TEST(QConvInt8, DepthwiseChannelLanes) {
  uint32_t seed = 750;
  const int64_t channels[] = {1, 5, 16, 17, 32, 40};
  for (int i = 0; i < 6; ++i) {
    // 3x2 .. 13x17, pads (1, 1, 1, 0): one column narrower than the input at stride 1, so
    // not the direct path's.
    QCase q = Depthwise(channels[i], 3, 3, 1, 3 + 2 * i, 2 + 3 * i);
    q.pads = {1, 1, 1, 0};
    q.x = i % 2 ? DType::kI8 : DType::kU8;
    q.out = i % 3 ? DType::kU8 : DType::kI8;
    q.narrow = i % 4 == 1;
    q.low_shift = i % 2 == 0;
    q.w_type = i == 3 ? DType::kU8 : DType::kI8;
    q.w_zero = i == 3;
    q.n = i == 4 ? 2 : 1;
    Check(q, seed++);  // 3x3 s1
    if (::testing::Test::HasFatalFailure()) return;
    q.stride = 2;
    Check(q, seed++);  // 3x3 s2
    if (::testing::Test::HasFatalFailure()) return;
    q.stride = 1;
    q.pads.clear();
    q.kh = q.kw = 5;
    q.pad = 4;
    q.dilation = 2;
    Check(q, seed++);  // 5x5 dilation 2
    if (::testing::Test::HasFatalFailure()) return;
  }
  for (DType out : {DType::kU8, DType::kI8}) {  // narrowed clamps at the usual shifts
    QCase q = Depthwise(20, 3, 3, 0, 9, 11);
    q.out = out;
    q.narrow = true;
    Check(q, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
  QCase q = Depthwise(18, 3, 3, 1, 62, 60);  // a 64 x 62 tile: 254 KiB, one band
  q.pads = {1, 1, 1, 0};
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  q.kh = q.kw = 1;
  q.pad = 0;
  q.pads = {0, 1, 0, 0};
  Check(q, seed++);  // 1x1 depthwise: one tap
  if (::testing::Test::HasFatalFailure()) return;
  // Planes whose tile passes 256 KiB run in bands of output rows (the rows above and below
  // the input zeroed per band): 3x3 s1 and s2, and 5x5 dilation 2 (a 9-row halo).
  q = Depthwise(17, 3, 3, 1, 101, 103);
  q.x = DType::kI8;
  q.pads = {1, 1, 1, 0};
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  q.stride = 2;
  q.w_type = DType::kU8;  // centred weights past s8: not the direct path's
  q.w_zero = true;
  q.pads.clear();
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  q.stride = 1;
  q.kh = q.kw = 5;
  q.pad = 4;
  q.dilation = 2;
  q.narrow = true;
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  // A plane so wide that each band is one output row, with pads larger than the window: the
  // first and last bands read only padding.
  q = Depthwise(17, 3, 3, 4, 2, 4300);
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  // More window shapes: odd and even widths, no left padding, a one-pixel-wide plane, stride
  // 2 on even windows, rectangular windows.
  struct Window {
    int64_t kh, kw, pad, h, w, stride;
  };
  for (const Window& k :
       {Window{5, 5, 2, 11, 13, 1}, Window{5, 5, 2, 12, 9, 2}, Window{2, 2, 0, 7, 10, 1},
        Window{4, 4, 1, 9, 8, 2}, Window{3, 3, 0, 6, 19, 1}, Window{3, 3, 1, 5, 1, 1},
        Window{1, 3, 1, 4, 6, 1}, Window{3, 7, 3, 8, 20, 1}}) {
    q = Depthwise(19, k.kh, k.kw, k.pad, k.h, k.w);
    q.stride = k.stride;
    q.x = k.kw % 2 ? DType::kI8 : DType::kU8;
    Check(q, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

// The direct depthwise path (Int8Kernels::dw_direct, VNNI: windows of up to 4 columns,
// dilation 1, centred weights in s8, no residual, 8-bit output). Stride 1 with the output as
// wide as the input runs the plane as one flat run of 64-output steps: planes smaller than a
// step, exactly one, rows longer than one, one-pixel-wide; window heights 1-5 (3 unrolled, the
// others looped) and widths 1-4 with pads that keep the width, padding rows past the input
// (outputs taller than it), batch 2 and channel counts that split unevenly. Stride 2 runs
// output rows of 32-column blocks (two rows per step up to 32 columns): output widths 17-100
// (one to four blocks, a block alone at the end), odd heights, pads 0 and 1 on either side,
// a height stride of 1 or 3, window heights 1-5. Throughout u8 and i8 codes in and out,
// narrowed clamps and shifts below 33 (the 64-bit epilogue). Last a stride-1 plane too large
// for the direct path's masks.
TEST(QConvInt8, DepthwiseDirect) {
  uint32_t seed = 2600;
  int variant = 0;
  const auto vary = [&variant](QCase& q) {
    q.x = variant % 2 ? DType::kI8 : DType::kU8;
    q.out = variant % 3 == 1 ? DType::kI8 : DType::kU8;
    q.narrow = variant % 4 == 2;
    q.low_shift = variant % 5 == 3;
    ++variant;
  };
  struct Flat {
    int64_t c, h, w, kh, kw;
    std::vector<int64_t> pads;  // top, left, bottom, right
  };
  for (const Flat& f : {Flat{5, 1, 1, 3, 3, {1, 1, 1, 1}}, Flat{3, 2, 3, 3, 3, {1, 1, 1, 1}},
                        Flat{33, 7, 7, 3, 3, {1, 1, 1, 1}}, Flat{6, 8, 8, 3, 3, {1, 1, 1, 1}},
                        Flat{7, 9, 9, 3, 3, {1, 1, 1, 1}}, Flat{9, 14, 14, 3, 3, {1, 1, 1, 1}},
                        Flat{4, 13, 17, 3, 3, {1, 1, 1, 1}}, Flat{3, 3, 130, 3, 3, {1, 1, 1, 1}},
                        Flat{3, 56, 5, 3, 3, {1, 1, 1, 1}}, Flat{4, 11, 1, 3, 3, {1, 1, 1, 1}},
                        Flat{5, 10, 9, 1, 1, {0, 0, 0, 0}}, Flat{5, 10, 9, 2, 2, {0, 1, 1, 0}},
                        Flat{5, 9, 10, 4, 4, {1, 2, 2, 1}}, Flat{5, 9, 10, 5, 3, {2, 1, 2, 1}},
                        Flat{5, 12, 6, 1, 3, {0, 1, 0, 1}}, Flat{5, 6, 11, 3, 2, {2, 0, 2, 1}},
                        Flat{5, 5, 21, 3, 3, {2, 1, 0, 1}}, Flat{5, 4, 15, 4, 4, {3, 3, 3, 0}}}) {
    QCase q = Depthwise(f.c, f.kh, f.kw, 0, f.h, f.w);
    q.pads = f.pads;
    vary(q);
    q.n = f.h == 14 ? 2 : 1;
    Check(q, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
  struct Strided {
    int64_t h, w, kh, kw, stride_h;
    std::vector<int64_t> pads;
  };
  for (const Strided& s :
       {Strided{35, 34, 3, 3, 2, {1, 1, 1, 1}}, Strided{9, 33, 3, 3, 2, {0, 0, 0, 0}},
        Strided{12, 64, 3, 3, 2, {1, 1, 1, 1}}, Strided{7, 66, 3, 3, 2, {1, 0, 1, 1}},
        Strided{11, 112, 3, 3, 2, {1, 1, 1, 1}}, Strided{5, 130, 3, 3, 2, {0, 1, 1, 1}},
        Strided{6, 200, 3, 3, 2, {1, 1, 1, 1}}, Strided{8, 70, 2, 2, 2, {0, 0, 0, 0}},
        Strided{9, 67, 4, 4, 2, {1, 1, 2, 2}}, Strided{7, 40, 1, 3, 2, {0, 1, 0, 1}},
        Strided{13, 50, 5, 3, 2, {2, 1, 2, 1}}, Strided{6, 40, 3, 3, 1, {1, 1, 1, 1}},
        Strided{14, 72, 3, 3, 3, {1, 1, 1, 1}}}) {
    QCase q = Depthwise(s.h % 2 ? 7 : 4, s.kh, s.kw, 0, s.h, s.w);
    q.stride = 2;
    q.stride_h = s.stride_h;
    q.pads = s.pads;
    q.n = s.w == 112 ? 2 : 1;
    vary(q);
    Check(q, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // A plane whose masks would pass 64 KiB (46,000 pixels): the lanes path, in bands.
  Check(Depthwise(3, 3, 3, 1, 200, 230), seed++);
}

// The channel-lanes path's column pairs (QDwLanesParams::column_pairs: even input widths,
// stride 1 with an even output width or stride 2): every window width 1-6 with left pads 0-2
// (the pairs' shift of 0 or 1, and pair taps past the window), rows of 34 and 26 columns (a
// 64-pixel transpose step ends inside a row), u8 and i8 codes; then planes in bands of output
// rows at both strides, and odd output widths, which keep the tile of single columns. (The
// direct path, DepthwiseDirect, takes the same-width stride-1 windows of up to 4 columns.)
TEST(QConvInt8, DepthwiseColumnPairs) {
  uint32_t seed = 1900;
  for (int64_t kw = 1; kw <= 6; ++kw) {
    for (int64_t pad = 0; pad <= 2; ++pad) {
      for (int64_t stride = 1; stride <= 2; ++stride) {
        // Stride 2 on 26 columns: output widths up to 16, which the direct path leaves here.
        QCase q = Depthwise(kw % 2 ? 17 : 32, 3, kw, pad, 5 + kw, stride == 1 ? 34 : 26);
        q.stride = stride;
        q.x = (kw + pad) % 2 ? DType::kI8 : DType::kU8;
        q.low_shift = pad == 1;
        Check(q, seed++);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
  for (int64_t stride = 1; stride <= 2; ++stride) {
    QCase q = Depthwise(20, 3, 5, 2, 100, 104);  // tiles past 256 KiB: bands (5 columns:
                                                 // not the direct path's)
    q.stride = stride;
    q.n = 2;
    Check(q, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
  QCase q = Depthwise(16, 2, 2, 0, 6, 12);  // stride 1, output width 11
  Check(q, seed++);
}

// The taps GEMM with its fused epilogue (Int8Kernels::gemm_taps_requant) on tiles that lie
// inside one output row, written straight to the planes (with a residual read in place),
// next to tiles broken by row ends (through a byte tile, the residual gathered): 3x3 stride 1
// and stride 2 on rows of 100-131 columns, with residuals, weight zero points (column sums),
// i8 and u8 codes, narrowed clamps.
TEST(QConvInt8, TapsTilesInsideOneRow) {
  uint32_t seed = 2900;
  QCase q;
  q.c = 8;
  q.m = 16;
  q.h = 4;
  q.w = 100;
  q.residual = true;
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  q.x = DType::kI8;
  q.w_type = DType::kU8;
  q.w_zero = true;
  q.narrow = true;
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  q = QCase{};
  q.c = 5;
  q.m = 8;
  q.stride = 2;
  q.h = 9;
  q.w = 131;
  q.residual = true;
  q.out = DType::kI8;
  Check(q, seed++);
}

// Rows wider than one 64-column step of the quad interleave (QInterleave4Fn) and a channel
// count that leaves a partial quad, pointwise and 3x3 (padded rows), i8 and u8 inputs; large
// inputs of one or two quads, whose rows the threads split.
TEST(QConvInt8, WideRowsInterleave) {
  uint32_t seed = 800;
  QCase q;
  q.kh = q.kw = 1;
  q.pad = 0;
  q.c = 13;
  q.m = 8;
  q.h = 3;
  q.w = 130;
  Check(q, seed++);  // 1x1: two full steps and a 2-column tail
  if (::testing::Test::HasFatalFailure()) return;
  q.x = DType::kI8;
  q.w = 64;
  Check(q, seed++);  // exactly one step, i8 codes flipped
  if (::testing::Test::HasFatalFailure()) return;
  q = QCase{};
  q.c = 12;
  q.h = 4;
  q.w = 67;
  Check(q, seed++);  // 3x3 p1: padded rows of 69 quads
  if (::testing::Test::HasFatalFailure()) return;
  // Inputs past 64 KiB with fewer channel quads than shares: the padded rows are split over
  // the threads too (a stem's one partial quad; two quads), stride 2 on phase planes with an
  // odd padded height, stride 1 in place.
  q = QCase{};
  q.c = 3;
  q.m = 8;
  q.stride = 2;
  q.h = 131;
  q.w = 127;
  Check(q, seed++);
  if (::testing::Test::HasFatalFailure()) return;
  q.c = 6;
  q.stride = 1;
  q.x = DType::kI8;
  Check(q, seed++);
}

// Requantization shifts on both sides of 33, where the VNNI epilogue switches from 64-bit
// lanes to the product's high halves: pointwise (fused GEMM epilogue), 3x3 (row epilogue)
// and depthwise, u8 and i8 outputs, narrowed clamps; then pointwise layers with narrowed
// clamps at the usual shifts.
TEST(QConvInt8, RequantShiftsAroundTheHighHalf) {
  uint32_t seed = 900;
  for (int i = 0; i < 6; ++i) {
    QCase q;
    q.low_shift = true;
    q.out = i % 2 ? DType::kI8 : DType::kU8;
    q.narrow = i % 3 == 0;
    if (i % 3 == 1) {
      q.kh = q.kw = 1;
      q.pad = 0;
      q.w = 37;
    } else if (i % 3 == 2) {
      q.c = q.m = q.group = 12;
    }
    Check(q, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
  // Pointwise with narrowed clamps and the usual shifts (>= 33): the fused GEMM epilogue's
  // packed path (int16 and byte saturation, byte clamps), u8 and i8 outputs, 37 columns (a
  // full 32-column tile and a tail), with and without weight zero points.
  for (int i = 0; i < 4; ++i) {
    QCase q;
    q.kh = q.kw = 1;
    q.pad = 0;
    q.w = 37;
    q.narrow = true;
    q.out = i % 2 ? DType::kI8 : DType::kU8;
    q.x = i < 2 ? DType::kU8 : DType::kI8;
    q.w_zero = i >= 2;
    q.w_type = q.w_zero ? DType::kU8 : DType::kI8;
    Check(q, seed++);
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(QConvInt8, RandomShapes) {
  std::mt19937 rng(2026);
  const DType types[] = {DType::kU8, DType::kI8};
  for (int i = 0; i < 40; ++i) {
    QCase q;
    const int kind = static_cast<int>(rng() % 4);  // 0 pointwise, 1 kxk, 2 depthwise, 3 grouped
    q.n = 1 + static_cast<int64_t>(rng() % 4 == 0);
    q.h = 1 + static_cast<int64_t>(rng() % 17);
    q.w = 1 + static_cast<int64_t>(rng() % 23);
    q.stride = 1 + static_cast<int64_t>(rng() % 3 == 0);
    q.dilation = 1 + static_cast<int64_t>(rng() % 5 == 0);
    q.kh = q.kw = kind == 0 ? 1 : 1 + 2 * static_cast<int64_t>(rng() % 3);
    if (rng() % 4 == 0 && kind != 0) q.kw = 1 + static_cast<int64_t>(rng() % 4);
    q.pad = kind == 0 ? 0 : static_cast<int64_t>(rng() % (q.kh / 2 + 2));
    if (kind == 2) {
      q.c = q.m = q.group = 2 + static_cast<int64_t>(rng() % 30);
    } else if (kind == 3) {
      q.group = 2 + static_cast<int64_t>(rng() % 3);
      q.c = q.group * (1 + static_cast<int64_t>(rng() % 9));
      q.m = q.group * 8 * (1 + static_cast<int64_t>(rng() % 2));
    } else {
      q.c = 1 + static_cast<int64_t>(rng() % 40);
      q.m = 1 + static_cast<int64_t>(rng() % 40);
    }
    // The input must cover at least one (dilated) window.
    q.h = std::max(q.h, (q.kh - 1) * q.dilation + 1);
    q.w = std::max(q.w, (q.kw - 1) * q.dilation + 1);
    q.x = types[rng() % 2];
    q.w_type = types[rng() % 2];
    q.w_zero = rng() % 3 == 0;
    q.residual = rng() % 3 == 0;
    const int out = static_cast<int>(rng() % 5);
    q.out = out < 2 ? DType::kU8 : out < 4 ? DType::kI8 : DType::kI32;
    q.narrow = rng() % 4 == 0;
    if (q.out == DType::kI32) q.residual = false;
    Check(q, 100 + static_cast<uint32_t>(i));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(QConvInt8, LayoutRoundTripAndSizes) {
  std::mt19937 rng(7);
  for (DType t : {DType::kI8, DType::kU8}) {
    const Shape shape = {19, 5, 3, 3};
    const auto codes = RandomCodes(rng, t, NumElements(shape));
    auto packed = PackLayout(Layout::kI8O8K4, t, shape, codes.data(), codes.size());
    ASSERT_TRUE(packed.ok()) << packed.status().ToString();
    EXPECT_EQ(packed->size(), size_t{24 * 9 * 8});  // O 19 -> 24, 9 taps, C 5 -> 8
    EXPECT_EQ(LayoutByteSize(Layout::kI8O8K4, t, shape), packed->size());
    auto back = UnpackLayout(Layout::kI8O8K4, t, shape, packed->data(), packed->size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, codes);
  }
  const size_t none = std::numeric_limits<size_t>::max();
  EXPECT_EQ(LayoutByteSize(Layout::kI8O8K4, DType::kF32, {8, 4}), none);
  EXPECT_FALSE(PackLayout(Layout::kI8O8K4, DType::kF32, {8, 4}, nullptr, 128).ok());
}

}  // namespace
}  // namespace kiln
