// Quantized reference kernels against the float ops on the dequantized operands: every output
// within one output quantization step, on random shapes and parameters; plus the requantize
// arithmetic itself and the schemas' refusals.
#include "ir/activation.h"
#include "tests/quantized_test_util.h"

namespace kiln::qtest {
namespace {

using testing::MakeF32;
using testing::ToF32;

QuantParams PerTensor(float scale, int64_t zp) {
  QuantParams q;
  q.scales = {scale};
  q.zero_points = {zp};
  return q;
}

// Parameters covering [lo, hi] for dtype t (asym u8, sym i8 or sym i16).
QuantParams ParamsFor(float lo, float hi, DType t) {
  if (t == DType::kU8) return quant::ChooseActivationParams(lo, hi, quant::ActMode::kAsymU8);
  if (t == DType::kI16) return quant::ChooseActivationParams(lo, hi, quant::ActMode::kSymI16);
  return quant::ChooseActivationParams(lo, hi, quant::ActMode::kSymI8);
}

// The bias at scale s_x * s_w[c], unsaturated (an int16 input's bias is int64).
std::vector<int64_t> BiasCodes(const std::vector<float>& b, float s_x,
                               const std::vector<float>& s_w) {
  std::vector<int64_t> out(b.size());
  for (size_t c = 0; c < b.size(); ++c) {
    out[c] = std::llround(static_cast<double>(b[c]) /
                          (static_cast<double>(s_x) * s_w[s_w.size() == 1 ? 0 : c]));
  }
  return out;
}

// The bias operand: i64 for an int16 input, i32 otherwise.
HostTensor BiasTensor(const std::vector<int64_t>& b, DType x_type) {
  const Shape s = {static_cast<int64_t>(b.size())};
  if (x_type == DType::kI16) return MakeI64(s, b);
  return MakeI32(s, std::vector<int32_t>(b.begin(), b.end()));
}

std::vector<float> FloatOp(OpType op, const Attributes& a, std::vector<HostTensor> ins) {
  std::vector<testing::OpInput> in;
  for (auto& t : ins) in.push_back({std::move(t), false, false});
  auto r = testing::RunSingleOp(op, a, in);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? ToF32((*r)[0]) : std::vector<float>{};
}

TEST(Requantize, RoundsHalfUpOnceAndSaturates) {
  // m = 0.5: (2^30, 31).
  const Requant half{1 << 30, 31};
  EXPECT_EQ(Requantize(3, half), 2);    // 1.5 -> 2
  EXPECT_EQ(Requantize(-3, half), -1);  // -1.5 -> -1 (ties towards +infinity)
  EXPECT_EQ(Requantize(5, half), 3);
  EXPECT_EQ(Requantize(-5, half), -2);
  EXPECT_EQ(Requantize(4, half), 2);
  // m = 2^20 saturates large inputs.
  auto big = quant::QuantizeMultiplier(1 << 20);
  ASSERT_TRUE(big.ok());
  EXPECT_EQ(Requantize(1 << 20, *big), std::numeric_limits<int32_t>::max());
  EXPECT_EQ(Requantize(-(1 << 20), *big), std::numeric_limits<int32_t>::min());
  EXPECT_EQ(RequantizeToOutput(1000, half, 10, 0, 255), 255);
  EXPECT_EQ(RequantizeToOutput(-1000, half, 10, 0, 255), 0);
  EXPECT_EQ(SaturatingAdd(std::numeric_limits<int32_t>::max(), 5),
            std::numeric_limits<int32_t>::max());
}

TEST(QuantizeMultiplier, NormalFormAndAccuracy) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> e(-40, 29);
  for (int i = 0; i < 2000; ++i) {
    const double m = std::pow(2.0, e(rng));
    auto r = quant::QuantizeMultiplier(m);
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(IsValidRequant(*r));
    const double back = std::ldexp(static_cast<double>(r->multiplier), -r->shift);
    if (r->shift < 62) {
      EXPECT_GE(r->multiplier, 1 << 30);
      EXPECT_LE(std::fabs(back - m), m * std::ldexp(1.0, -30)) << m;
    } else {
      EXPECT_LE(std::fabs(back - m), std::ldexp(1.0, -62)) << m;
    }
  }
  EXPECT_FALSE(quant::QuantizeMultiplier(std::ldexp(1.0, 31)).ok());
  EXPECT_FALSE(quant::QuantizeMultiplier(-1).ok());
  auto zero = quant::QuantizeMultiplier(0);
  ASSERT_TRUE(zero.ok());
  EXPECT_EQ(zero->multiplier, 0);
}

TEST(ActivationParams, ZeroIsExactAndRangeCovered) {
  const QuantParams a = quant::ChooseActivationParams(-1.3, 4.2, quant::ActMode::kAsymU8);
  EXPECT_NEAR(quant::Dequantize(a.zero_points[0], a.scales[0], a.zero_points[0]), 0.0, 0.0);
  EXPECT_NEAR(a.scales[0], 5.5 / 255, 1e-7);
  const QuantParams r = quant::ChooseActivationParams(0, 6, quant::ActMode::kAsymU8);
  EXPECT_EQ(r.zero_points[0], 0);
  const QuantParams s = quant::ChooseActivationParams(-1.3, 4.2, quant::ActMode::kSymI8);
  EXPECT_EQ(s.zero_points[0], 0);
  EXPECT_NEAR(s.scales[0], 4.2 / 127, 1e-7);
  const QuantParams tiny = quant::ChooseActivationParams(0, 0, quant::ActMode::kAsymU8);
  EXPECT_GT(tiny.scales[0], 0.f);
}

struct ConvCase {
  int64_t n, c, h, w, m, k, group, stride, pad, dilation;
  bool residual, per_channel;
  Activation act;
  DType x_type, out_type;
  bool w16 = false;  // int16 weights (an --int16 node's)
};

// One random QConv case: quantized operands, the float FusedConv on their real values, and
// the comparison in output steps. Also checks 1 and 3 threads agree bit for bit.
void CheckConv(const ConvCase& cc, uint32_t seed) {
  std::mt19937 rng(seed);
  const Shape xs = {cc.n, cc.c, cc.h, cc.w};
  const Shape ws = {cc.m, cc.c / cc.group, cc.k, cc.k};
  const auto xr = RandomFloats(rng, static_cast<size_t>(NumElements(xs)), -1.5f, 3.f);
  const QuantParams xq = ParamsFor(-1.5f, 3.f, cc.x_type);
  const HostTensor xt = QuantizeTensor(xr, xs, cc.x_type, xq);
  const auto wr = RandomFloats(rng, static_cast<size_t>(NumElements(ws)), -0.5f, 0.5f);
  const quant::QuantizedWeights qw =
      quant::QuantizeWeightsAxis0(wr, cc.m, cc.per_channel, {}, cc.w16 ? 16 : 8);
  HostTensor wt("", cc.w16 ? DType::kI16 : DType::kI8, ws);
  if (cc.w16) {
    std::memcpy(wt.bytes.data(), qw.values16.data(), qw.values16.size() * 2);
  } else {
    std::memcpy(wt.bytes.data(), qw.values.data(), qw.values.size());
  }
  QuantParams wq;
  wq.scales = qw.scales;
  wq.zero_points.assign(qw.scales.size(), 0);
  wq.axis = cc.per_channel ? 0 : -1;
  const auto br = RandomFloats(rng, static_cast<size_t>(cc.m), -1.f, 1.f);
  const std::vector<int64_t> bq = BiasCodes(br, xq.scales[0], qw.scales);

  Attributes a;
  a.Set("group", cc.group);
  a.Set("strides", std::vector<int64_t>{cc.stride, cc.stride});
  a.Set("pads", std::vector<int64_t>{cc.pad, cc.pad, cc.pad, cc.pad});
  a.Set("dilations", std::vector<int64_t>{cc.dilation, cc.dilation});
  // Float reference on the dequantized operands.
  std::vector<float> wd(wr.size()), bd(br.size());
  const int64_t per = NumElements(ws) / cc.m;
  for (int64_t o = 0; o < cc.m; ++o) {
    const float s = qw.scales[cc.per_channel ? static_cast<size_t>(o) : 0];
    for (int64_t i = 0; i < per; ++i) {
      wd[static_cast<size_t>(o * per + i)] =
          static_cast<float>(qw.code(static_cast<size_t>(o * per + i))) * s;
    }
    bd[static_cast<size_t>(o)] = static_cast<float>(bq[static_cast<size_t>(o)]) * xq.scales[0] * s;
  }
  Attributes fa = a;
  ActivationParams act;
  act.kind = cc.act;
  if (cc.act == Activation::kClip) {
    act.alpha = 0.f;
    act.beta = 2.f;
  }
  WriteActivation(act, &fa);
  std::vector<HostTensor> float_in = {MakeF32(xs, DequantizeTensor(xt, xq)), MakeF32(ws, wd),
                                      MakeF32({cc.m}, bd)};
  // The output shape, from a float run without residual.
  auto probe = testing::RunSingleOp(OpType::kConv, a, {{float_in[0]}, {float_in[1]}});
  ASSERT_TRUE(probe.ok()) << probe.status().ToString();
  const Shape ys = (*probe)[0].shape;

  QuantParams rq;
  HostTensor rt;
  if (cc.residual) {
    const auto rr = RandomFloats(rng, static_cast<size_t>(NumElements(ys)), -2.f, 2.f);
    rq = ParamsFor(-2.f, 2.f, cc.x_type);
    rt = QuantizeTensor(rr, ys, cc.x_type, rq);
    float_in.push_back(MakeF32(ys, DequantizeTensor(rt, rq)));
  }
  const std::vector<float> want = FloatOp(OpType::kFusedConv, fa, float_in);
  float lo = 0, hi = 0;
  for (float v : want) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  QuantParams yq = cc.out_type == DType::kI32 ? QuantParams{} : ParamsFor(lo, hi, cc.out_type);

  Attributes qa = a;
  qa.Set("out_dtype", std::string(DTypeName(cc.out_type)));
  std::vector<QIn> ins = {QIn{xt, xq}, QIn{wt, wq, true}, QIn{BiasTensor(bq, cc.x_type), {}, true}};
  ins.push_back(cc.residual ? QIn{rt, rq} : Omitted());
  if (cc.out_type == DType::kI32) {
    // Accumulator output: real value = acc * s_x * s_w[oc]; only Relu is foldable there.
    if (cc.act == Activation::kRelu) qa.Set("qmin", int64_t{0});
    ins.push_back(Omitted());
    auto got = RunQuantizedOp(OpType::kQConv, qa, ins, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const int64_t plane = NumElements(ys) / (cc.n * cc.m);
    for (int64_t i = 0; i < got->num_elements(); ++i) {
      const int64_t oc = (i / plane) % cc.m;
      const double s = xq.scales[0] * qw.scales[cc.per_channel ? static_cast<size_t>(oc) : 0];
      const double real = got->data<int32_t>()[i] * s;
      ASSERT_NEAR(real, want[static_cast<size_t>(i)], 1e-4 + 1e-5 * std::fabs(want[static_cast<size_t>(i)]));
    }
    return;
  }
  auto clamp = quant::ActivationClamp(act, yq, cc.out_type);
  ASSERT_TRUE(clamp.ok());
  qa.Set("qmin", clamp->qmin);
  qa.Set("qmax", clamp->qmax);
  std::vector<double> m, rm;
  for (int64_t o = 0; o < cc.m; ++o) {
    const double sw = qw.scales[cc.per_channel ? static_cast<size_t>(o) : 0];
    m.push_back(xq.scales[0] * sw / yq.scales[0]);
    if (cc.residual) rm.push_back(rq.scales[0] / (xq.scales[0] * sw));
  }
  ins.push_back(RequantInput(m));
  if (cc.residual) ins.push_back(RequantInput(rm));
  auto got = RunQuantizedOp(OpType::kQConv, qa, ins, yq);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectWithinSteps(*got, yq, want);
  auto threaded = RunQuantizedOp(OpType::kQConv, qa, ins, yq, 3);
  ASSERT_TRUE(threaded.ok());
  EXPECT_EQ(threaded->bytes, got->bytes) << "threads change the result";
}

TEST(QConv, HandPickedCases) {
  // n c h w m k group stride pad dil residual per_channel act x out
  CheckConv({1, 3, 7, 7, 4, 3, 1, 1, 1, 1, false, true, Activation::kNone, DType::kU8, DType::kU8},
            1);
  CheckConv({1, 8, 9, 9, 8, 3, 8, 2, 1, 1, false, true, Activation::kRelu, DType::kU8, DType::kU8},
            2);
  CheckConv({2, 4, 6, 5, 6, 1, 1, 1, 0, 1, true, true, Activation::kRelu, DType::kU8, DType::kU8},
            3);
  CheckConv({1, 4, 8, 8, 4, 3, 2, 1, 2, 2, false, false, Activation::kClip, DType::kI8, DType::kI8},
            4);
  CheckConv({1, 6, 5, 5, 3, 3, 1, 1, 1, 1, true, false, Activation::kNone, DType::kI8, DType::kU8},
            5);
  CheckConv({1, 5, 4, 4, 7, 2, 1, 2, 0, 1, false, true, Activation::kRelu, DType::kU8, DType::kI32},
            6);
}

// int16 activations: int64 accumulators and bias, residual, depthwise, and the mixed cases an
// int16 layer next to 8-bit ones gives (8-bit in, int16 out and back).
TEST(QConv, Int16Activations) {
  // n c h w m k group stride pad dil residual per_channel act x out
  CheckConv(
      {1, 3, 7, 7, 4, 3, 1, 1, 1, 1, false, true, Activation::kNone, DType::kI16, DType::kI16}, 31);
  CheckConv(
      {1, 8, 9, 9, 8, 3, 8, 2, 1, 1, false, true, Activation::kRelu, DType::kI16, DType::kI16}, 32);
  CheckConv({2, 4, 6, 5, 6, 1, 1, 1, 0, 1, true, true, Activation::kClip, DType::kI16, DType::kI16},
            33);
  CheckConv(
      {1, 6, 5, 5, 3, 3, 1, 1, 1, 1, false, false, Activation::kNone, DType::kI16, DType::kU8}, 34);
  CheckConv({1, 6, 5, 5, 3, 3, 1, 1, 1, 1, true, true, Activation::kRelu, DType::kU8, DType::kI16},
            35);
  // 512 input channels x 9 taps of int16 x int8: sums far beyond int32.
  CheckConv(
      {1, 512, 3, 3, 2, 3, 1, 1, 1, 1, false, true, Activation::kNone, DType::kI16, DType::kI16},
      36);
  // int16 weights (an --int16 node's): with int16 and with 8-bit activations, depthwise too.
  CheckConv(
      {1, 6, 7, 7, 4, 3, 1, 1, 1, 1, true, true, Activation::kRelu, DType::kI16, DType::kI16, true},
      37);
  CheckConv({1, 8, 9, 9, 8, 5, 8, 2, 2, 1, false, true, Activation::kNone, DType::kI16, DType::kI16,
             true},
            38);
  CheckConv(
      {1, 5, 6, 6, 3, 3, 1, 1, 1, 1, false, false, Activation::kClip, DType::kU8, DType::kU8, true},
      39);
}

TEST(QConv, RandomShapes) {
  std::mt19937 rng(11);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int t = 0; t < 40; ++t) {
    ConvCase cc;
    cc.group = pick(0, 2) == 0 ? pick(1, 3) : 1;
    const bool depthwise = pick(0, 3) == 0;
    cc.c = cc.group * pick(1, 4);
    cc.m = cc.group * pick(1, 4);
    if (depthwise) {
      cc.group = cc.c;
      cc.m = cc.c;
    }
    cc.n = pick(1, 2);
    cc.k = pick(1, 3);
    cc.stride = pick(1, 2);
    cc.pad = pick(0, 1);
    cc.dilation = pick(1, 2);
    cc.h = pick(cc.k * cc.dilation, 9);
    cc.w = pick(cc.k * cc.dilation, 9);
    cc.per_channel = pick(0, 1) == 1;
    const Activation acts[] = {Activation::kNone, Activation::kRelu, Activation::kClip};
    cc.act = acts[pick(0, 2)];
    const DType ins[] = {DType::kU8, DType::kI8, DType::kI16};
    cc.x_type = ins[pick(0, 2)];
    const DType outs[] = {DType::kU8, DType::kI8, DType::kI32, DType::kI16};
    cc.out_type = outs[pick(0, 3)];
    if (cc.x_type == DType::kI16 && cc.out_type == DType::kI32) cc.out_type = DType::kI16;
    if (cc.out_type == DType::kI32 && cc.act == Activation::kClip) cc.act = Activation::kRelu;
    cc.residual = cc.out_type != DType::kI32 && pick(0, 2) == 0;
    SCOPED_TRACE("case " + std::to_string(t));
    CheckConv(cc, static_cast<uint32_t>(100 + t));
  }
}

void CheckGemm(int64_t m, int64_t k, int64_t n, bool trans_b, DType x_type, DType out_type,
               uint32_t seed, bool w16 = false) {
  std::mt19937 rng(seed);
  const auto ar = RandomFloats(rng, static_cast<size_t>(m * k), -1.f, 2.f);
  const QuantParams aq = ParamsFor(-1.f, 2.f, x_type);
  const HostTensor at = QuantizeTensor(ar, {m, k}, x_type, aq);
  // B quantized per output feature: lay it out [N, K], quantize along axis 0, then transpose
  // when transB = 0.
  const auto br = RandomFloats(rng, static_cast<size_t>(n * k), -0.4f, 0.4f);
  const quant::QuantizedWeights qb = quant::QuantizeWeightsAxis0(br, n, true, {}, w16 ? 16 : 8);
  HostTensor bt("", w16 ? DType::kI16 : DType::kI8, trans_b ? Shape{n, k} : Shape{k, n});
  std::vector<float> bd(static_cast<size_t>(n * k));
  for (int64_t j = 0; j < n; ++j) {
    for (int64_t i = 0; i < k; ++i) {
      const int32_t v = static_cast<int32_t>(qb.code(static_cast<size_t>(j * k + i)));
      const int64_t dst = trans_b ? j * k + i : i * n + j;
      StoreQuantized(bt.bytes.data(), bt.dtype, dst, v);
      bd[static_cast<size_t>(dst)] = static_cast<float>(v) * qb.scales[static_cast<size_t>(j)];
    }
  }
  QuantParams bq;
  bq.scales = qb.scales;
  bq.zero_points.assign(qb.scales.size(), 0);
  bq.axis = trans_b ? 0 : 1;
  const auto cr = RandomFloats(rng, static_cast<size_t>(n), -1.f, 1.f);
  const std::vector<int64_t> cq = BiasCodes(cr, aq.scales[0], qb.scales);
  std::vector<float> cd(static_cast<size_t>(n));
  for (int64_t j = 0; j < n; ++j) cd[static_cast<size_t>(j)] = cq[static_cast<size_t>(j)] * aq.scales[0] * qb.scales[static_cast<size_t>(j)];
  Attributes a;
  a.Set("transB", int64_t{trans_b ? 1 : 0});
  const std::vector<float> want =
      FloatOp(OpType::kGemm, a, {MakeF32({m, k}, DequantizeTensor(at, aq)),
                                 MakeF32(bt.shape, bd), MakeF32({n}, cd)});
  float lo = 0, hi = 0;
  for (float v : want) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  Attributes qa = a;
  qa.Set("out_dtype", std::string(DTypeName(out_type)));
  std::vector<QIn> ins = {QIn{at, aq}, QIn{bt, bq, true}, QIn{BiasTensor(cq, x_type), {}, true}};
  if (out_type == DType::kI32) {
    auto got = RunQuantizedOp(OpType::kQGemm, qa, ins, {});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    for (int64_t i = 0; i < m * n; ++i) {
      const double real = got->data<int32_t>()[i] * aq.scales[0] * qb.scales[static_cast<size_t>(i % n)];
      ASSERT_NEAR(real, want[static_cast<size_t>(i)], 1e-4);
    }
    return;
  }
  const QuantParams yq = ParamsFor(lo, hi, out_type);
  std::vector<double> mult;
  for (int64_t j = 0; j < n; ++j) mult.push_back(aq.scales[0] * qb.scales[static_cast<size_t>(j)] / yq.scales[0]);
  ins.push_back(RequantInput(mult));
  auto got = RunQuantizedOp(OpType::kQGemm, qa, ins, yq);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectWithinSteps(*got, yq, want);
  auto threaded = RunQuantizedOp(OpType::kQGemm, qa, ins, yq, 2);
  ASSERT_TRUE(threaded.ok());
  EXPECT_EQ(threaded->bytes, got->bytes);
}

TEST(QGemm, RandomShapes) {
  std::mt19937 rng(21);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int t = 0; t < 20; ++t) {
    const DType outs[] = {DType::kU8, DType::kI8, DType::kI32, DType::kI16};
    const DType ins[] = {DType::kU8, DType::kI8, DType::kI16};
    const DType x = ins[pick(0, 2)];
    DType out = outs[pick(0, 3)];
    if (x == DType::kI16 && out == DType::kI32) out = DType::kI16;
    SCOPED_TRACE("case " + std::to_string(t));
    CheckGemm(pick(1, 4), pick(1, 40), pick(1, 90), pick(0, 1) == 1, x, out,
              static_cast<uint32_t>(t));
  }
  // A long int16 dot product (sums beyond int32); int16 weights.
  CheckGemm(2, 3000, 5, true, DType::kI16, DType::kI16, 99);
  CheckGemm(3, 700, 9, false, DType::kI16, DType::kI16, 98, true);
  CheckGemm(2, 70, 33, true, DType::kU8, DType::kU8, 97, true);
}

void CheckBinary(OpType op, const Shape& as, const Shape& bs, DType t, bool relu, uint32_t seed,
                 DType b_type = DType::kUndefined, DType out_type = DType::kUndefined) {
  std::mt19937 rng(seed);
  const DType bt_type = b_type == DType::kUndefined ? t : b_type;
  const DType yt = out_type == DType::kUndefined ? t : out_type;
  const auto ar = RandomFloats(rng, static_cast<size_t>(NumElements(as)), -2.f, 1.f);
  const auto br = RandomFloats(rng, static_cast<size_t>(NumElements(bs)), -0.5f, 3.f);
  const QuantParams aq = ParamsFor(-2.f, 1.f, t), bq = ParamsFor(-0.5f, 3.f, bt_type);
  const HostTensor at = QuantizeTensor(ar, as, t, aq), bt = QuantizeTensor(br, bs, bt_type, bq);
  std::vector<float> want =
      FloatOp(op == OpType::kQAdd ? OpType::kAdd : OpType::kMul, {},
              {MakeF32(as, DequantizeTensor(at, aq)), MakeF32(bs, DequantizeTensor(bt, bq))});
  float lo = 0, hi = 0;
  for (float& v : want) {
    if (relu) v = std::max(v, 0.f);
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  // A narrower output range than the data: saturation must clamp, not wrap.
  const QuantParams yq = ParamsFor(lo * 0.8f, hi * 0.8f, yt);
  Attributes qa;
  qa.Set("out_dtype", std::string(DTypeName(yt)));
  if (relu) qa.Set("qmin", yq.zero_points[0]);
  std::vector<double> m;
  if (op == OpType::kQAdd) {
    const double twice_max = 2.0 * std::max(aq.scales[0], bq.scales[0]);
    m = {aq.scales[0] / twice_max, bq.scales[0] / twice_max,
         twice_max / (std::ldexp(1.0, QAddLeftShift(t == DType::kI16 || bt_type == DType::kI16)) *
                      yq.scales[0])};
  } else {
    m = {static_cast<double>(aq.scales[0]) * bq.scales[0] / yq.scales[0]};
  }
  auto got = RunQuantizedOp(op, qa, {QIn{at, aq}, QIn{bt, bq}, RequantInput(m)}, yq);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectWithinSteps(*got, yq, want);
}

TEST(QAddQMul, BroadcastingAndSaturation) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{2, 3, 4, 5}, {2, 3, 4, 5}}, {{1, 8, 3, 3}, {1, 8, 1, 1}}, {{4, 1}, {1, 6}},
      {{7}, {1}}, {{2, 5, 3}, {5, 1}}};
  uint32_t seed = 1;
  for (const auto& [as, bs] : shapes) {
    for (DType t : {DType::kU8, DType::kI8}) {
      for (bool relu : {false, true}) {
        SCOPED_TRACE(ShapeToString(as) + " x " + ShapeToString(bs));
        CheckBinary(OpType::kQAdd, as, bs, t, relu, seed++);
        CheckBinary(OpType::kQMul, as, bs, t, relu, seed++);
      }
    }
  }
}

TEST(QAddQMul, Int16AndMixedOperands) {
  const std::vector<std::pair<Shape, Shape>> shapes = {{{2, 3, 4, 5}, {2, 3, 4, 5}},
                                                       {{1, 8, 3, 3}, {1, 8, 1, 1}}};
  uint32_t seed = 200;
  for (const auto& [as, bs] : shapes) {
    for (bool relu : {false, true}) {
      SCOPED_TRACE(ShapeToString(as) + " x " + ShapeToString(bs));
      for (OpType op : {OpType::kQAdd, OpType::kQMul}) {
        CheckBinary(op, as, bs, DType::kI16, relu, seed++);
        CheckBinary(op, as, bs, DType::kI16, relu, seed++, DType::kU8, DType::kI16);
        CheckBinary(op, as, bs, DType::kU8, relu, seed++, DType::kI16, DType::kU8);
        CheckBinary(op, as, bs, DType::kI8, relu, seed++, DType::kI8, DType::kI16);
      }
    }
  }
}

TEST(QConcat, RequantizesEachInput) {
  std::mt19937 rng(3);
  for (DType t : {DType::kU8, DType::kI8, DType::kI16}) {
    const Shape a = {1, 3, 4, 2}, b = {1, 5, 4, 2};
    const auto ar = RandomFloats(rng, 24, -1.f, 1.f), br = RandomFloats(rng, 40, 0.f, 6.f);
    const QuantParams aq = ParamsFor(-1, 1, t), bq = ParamsFor(0, 6, t), yq = ParamsFor(-1, 6, t);
    const HostTensor at = QuantizeTensor(ar, a, t, aq), bt = QuantizeTensor(br, b, t, bq);
    Attributes attrs;
    attrs.Set("axis", int64_t{1});
    const std::vector<float> want =
        FloatOp(OpType::kConcat, attrs,
                {MakeF32(a, DequantizeTensor(at, aq)), MakeF32(b, DequantizeTensor(bt, bq))});
    attrs.Set("out_dtype", std::string(DTypeName(t)));
    auto got = RunQuantizedOp(
        OpType::kQConcat, attrs,
        {QIn{at, aq}, QIn{bt, bq},
         RequantInput({aq.scales[0] / yq.scales[0], bq.scales[0] / yq.scales[0]})},
        yq);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectWithinSteps(*got, yq, want);
  }
}

TEST(QAveragePool, CountsWithAndWithoutPadding) {
  std::mt19937 rng(4);
  for (int include_pad = 0; include_pad < 2; ++include_pad) {
    for (DType t : {DType::kU8, DType::kI8, DType::kI16}) {
      const Shape xs = {2, 3, 7, 6};
      const auto xr = RandomFloats(rng, static_cast<size_t>(NumElements(xs)), -1.f, 4.f);
      const QuantParams xq = ParamsFor(-1, 4, t), yq = ParamsFor(-0.7f, 3.5f, t);
      const HostTensor xt = QuantizeTensor(xr, xs, t, xq);
      Attributes attrs;
      attrs.Set("kernel_shape", std::vector<int64_t>{3, 2});
      attrs.Set("strides", std::vector<int64_t>{2, 1});
      attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 0});
      attrs.Set("count_include_pad", int64_t{include_pad});
      const std::vector<float> want =
          FloatOp(OpType::kAveragePool, attrs, {MakeF32(xs, DequantizeTensor(xt, xq))});
      std::vector<double> m;
      for (int c = 1; c <= 6; ++c) m.push_back(xq.scales[0] / (yq.scales[0] * c));
      attrs.Set("out_dtype", std::string(DTypeName(t)));
      auto got = RunQuantizedOp(OpType::kQAveragePool, attrs, {QIn{xt, xq}, RequantInput(m)}, yq);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      ExpectWithinSteps(*got, yq, want);
    }
  }
}

TEST(QGlobalAveragePool, EightBitAndAccumulatorOutputs) {
  std::mt19937 rng(6);
  const Shape xs = {2, 5, 7, 7};
  const auto xr = RandomFloats(rng, static_cast<size_t>(NumElements(xs)), 0.f, 6.f);
  const QuantParams xq = ParamsFor(0, 6, DType::kU8), yq = ParamsFor(0, 4, DType::kU8);
  const HostTensor xt = QuantizeTensor(xr, xs, DType::kU8, xq);
  const std::vector<float> want =
      FloatOp(OpType::kGlobalAveragePool, {}, {MakeF32(xs, DequantizeTensor(xt, xq))});
  Attributes attrs;
  attrs.Set("out_dtype", std::string("u8"));
  auto got = RunQuantizedOp(OpType::kQGlobalAveragePool, attrs,
                            {QIn{xt, xq}, RequantInput({xq.scales[0] / (yq.scales[0] * 49)})}, yq);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectWithinSteps(*got, yq, want);
  attrs.Set("out_dtype", std::string("i32"));
  auto wide = RunQuantizedOp(OpType::kQGlobalAveragePool, attrs, {QIn{xt, xq}}, {});
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_NEAR(wide->data<int32_t>()[i] * xq.scales[0] / 49.0, want[i], 1e-5);
  }
}

TEST(QGlobalAveragePool, Int16Input) {
  std::mt19937 rng(7);
  const Shape xs = {1, 3, 40, 40};
  const auto xr = RandomFloats(rng, static_cast<size_t>(NumElements(xs)), -3.f, 6.f);
  const QuantParams xq = ParamsFor(-3, 6, DType::kI16), yq = ParamsFor(-1, 3, DType::kI16);
  const HostTensor xt = QuantizeTensor(xr, xs, DType::kI16, xq);
  const std::vector<float> want =
      FloatOp(OpType::kGlobalAveragePool, {}, {MakeF32(xs, DequantizeTensor(xt, xq))});
  Attributes attrs;
  attrs.Set("out_dtype", std::string("i16"));
  auto got =
      RunQuantizedOp(OpType::kQGlobalAveragePool, attrs,
                     {QIn{xt, xq}, RequantInput({xq.scales[0] / (yq.scales[0] * 1600)})}, yq);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ExpectWithinSteps(*got, yq, want);
}

// int16 input: 513 knots, linear interpolation between them. The bound: one output step for
// the rounding (knots and interpolation), plus the interpolation error of the function itself:
// max|f''| * h^2 / 8 for knot spacing h, and at a kink (HardSwish's slope jumps by 1/2 at -3
// and 3) jump * h / 4.
TEST(QLookup, Int16InterpolatedTable) {
  struct Fn {
    OpType op;
    double (*f)(double);
    float lo, hi;
    double max_second_derivative, slope_jump;
  };
  const Fn fns[] = {
      {OpType::kSigmoid, [](double x) { return 1.0 / (1.0 + std::exp(-x)); }, 0.f, 1.f, 0.0963,
       0.0},
      {OpType::kHardSwish, [](double x) { return x * std::clamp(x + 3.0, 0.0, 6.0) / 6.0; },
       -0.375f, 6.f, 1.0 / 3.0, 0.5}};
  for (const Fn& fn : fns) {
    for (DType out : {DType::kI16, DType::kU8}) {
      const QuantParams xq = ParamsFor(-6, 6, DType::kI16), yq = ParamsFor(fn.lo, fn.hi, out);
      HostTensor table("", out, {513});
      for (int k = 0; k <= 512; ++k) {
        const double v = fn.f(quant::Dequantize(-32768 + 128 * k, xq.scales[0], 0));
        StoreQuantized(
            table.bytes.data(), out, k,
            static_cast<int32_t>(quant::QuantizeValue(v, yq.scales[0], yq.zero_points[0], out)));
      }
      std::mt19937 rng(10);
      auto xr = RandomFloats(rng, 2000, -6.5f, 6.5f);
      xr.push_back(-3.f);  // HardSwish's kinks and the ends of the range
      xr.push_back(3.f);
      xr.push_back(-6.f);
      xr.push_back(6.f);
      const Shape xs = {static_cast<int64_t>(xr.size())};
      const HostTensor xt = QuantizeTensor(xr, xs, DType::kI16, xq);
      const std::vector<float> want = FloatOp(fn.op, {}, {MakeF32(xs, DequantizeTensor(xt, xq))});
      auto got = RunQuantizedOp(OpType::kQLookup, {}, {QIn{xt, xq}, QIn{table, {}, true}}, yq);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      const double h = 128.0 * xq.scales[0];
      ExpectWithinSteps(
          *got, yq, want,
          1.0 + (fn.max_second_derivative * h * h / 8 + fn.slope_jump * h / 4) / yq.scales[0]);
    }
  }
  // A 256-entry table is refused for an int16 input.
  const QuantParams xq = ParamsFor(-6, 6, DType::kI16);
  HostTensor small("", DType::kI16, {256});
  const HostTensor xt = QuantizeTensor({0.f}, {1}, DType::kI16, xq);
  EXPECT_FALSE(RunQuantizedOp(OpType::kQLookup, {}, {QIn{xt, xq}, QIn{small, {}, true}}, xq).ok());
}

TEST(QuantizedSchemas, RefuseInt16WithZeroPoint) {
  HostTensor x("", DType::kI16, {1, 4});
  Attributes a;
  a.Set("out_dtype", std::string("i16"));
  const QuantParams ok = PerTensor(0.1f, 0), off = PerTensor(0.1f, 5);
  EXPECT_TRUE(
      RunQuantizedOp(OpType::kQAdd, a, {QIn{x, ok}, QIn{x, ok}, RequantInput({0.5, 0.5, 1})}, ok)
          .ok());
  EXPECT_FALSE(
      RunQuantizedOp(OpType::kQAdd, a, {QIn{x, off}, QIn{x, ok}, RequantInput({0.5, 0.5, 1})}, ok)
          .ok());
}

TEST(Requantize, WideMatchesNarrowAndRoundsExactly) {
  std::mt19937 rng(12);
  std::uniform_int_distribution<int32_t> x32(std::numeric_limits<int32_t>::min(),
                                             std::numeric_limits<int32_t>::max());
  std::uniform_real_distribution<double> e(-40, 0);
  for (int i = 0; i < 5000; ++i) {
    auto r = quant::QuantizeMultiplier(std::pow(2.0, e(rng)));
    ASSERT_TRUE(r.ok());
    const int32_t x = x32(rng);
    EXPECT_EQ(RequantizeWide(x, *r), Requantize(x, *r));
  }
  // Beyond int32: 3 * 2^40 * 0.5 = 3 * 2^39 saturates; 2^40 + 1 times 2^-10 rounds half up.
  const Requant half{1 << 30, 31};
  EXPECT_EQ(RequantizeWide(int64_t{3} << 40, half), std::numeric_limits<int32_t>::max());
  const Requant tiny{1 << 30, 40};  // 2^-10
  EXPECT_EQ(RequantizeWide((int64_t{1} << 40) + 512, tiny), (1 << 30) + 1);
  EXPECT_EQ(RequantizeWide(-(int64_t{1} << 40) - 512, tiny), -(1 << 30));
}

TEST(QLookup, SigmoidTableIsExactPerCode) {
  for (DType t : {DType::kU8, DType::kI8}) {
    const QuantParams xq = ParamsFor(-6, 6, t), yq = ParamsFor(0, 1, t);
    HostTensor table("", t, {256});
    for (int code = 0; code < 256; ++code) {
      const int32_t x = t == DType::kU8 ? code : code - 128;
      const double v = 1.0 / (1.0 + std::exp(-quant::Dequantize(x, xq.scales[0], xq.zero_points[0])));
      StoreQuantized(table.bytes.data(), t, code,
                     static_cast<int32_t>(quant::QuantizeValue(v, yq.scales[0], yq.zero_points[0], t)));
    }
    std::mt19937 rng(9);
    const auto xr = RandomFloats(rng, 300, -7.f, 7.f);
    const HostTensor xt = QuantizeTensor(xr, {3, 100}, t, xq);
    const std::vector<float> want =
        FloatOp(OpType::kSigmoid, {}, {MakeF32({3, 100}, DequantizeTensor(xt, xq))});
    auto got = RunQuantizedOp(OpType::kQLookup, {}, {QIn{xt, xq}, QIn{table, {}, true}}, yq);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ExpectWithinSteps(*got, yq, want, 0.5);
  }
}

TEST(QuantizedSchemas, RefuseMissingParametersAndBadRequant) {
  const QuantParams q = PerTensor(0.1f, 3);
  HostTensor x("", DType::kU8, {1, 4});
  Attributes a;
  a.Set("out_dtype", std::string("u8"));
  // No quantization parameters on an input.
  auto r = RunQuantizedOp(OpType::kQAdd, a, {QIn{x, {}}, QIn{x, q}, RequantInput({0.5, 0.5, 1})}, q);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no quantization parameters"), std::string::npos);
  // A requant row with shift 0 (invalid) is refused at prepare.
  QIn bad{MakeI32({3, 2}, {1 << 30, 0, 1 << 30, 31, 1 << 30, 31}), {}, true};
  r = RunQuantizedOp(OpType::kQAdd, a, {QIn{x, q}, QIn{x, q}, bad}, q);
  EXPECT_FALSE(r.ok());
  // A zero point outside the type.
  r = RunQuantizedOp(OpType::kQAdd, a, {QIn{x, PerTensor(0.1f, 300)}, QIn{x, q}, RequantInput({0.5, 0.5, 1})}, q);
  EXPECT_FALSE(r.ok());
  // A clamp outside the output type.
  a.Set("qmax", int64_t{300});
  r = RunQuantizedOp(OpType::kQAdd, a, {QIn{x, q}, QIn{x, q}, RequantInput({0.5, 0.5, 1})}, q);
  EXPECT_FALSE(r.ok());
}

}  // namespace
}  // namespace kiln::qtest
