// The DSP convolution with weights in the DSP's layout kDspK4 (4-channel dot products, VNNI
// where the CPU has it): bit-identical to the CPU integer reference kernels (which unpack the
// layout) on random shapes — channels not a multiple of 4, strides 1 and 2, dilation, padding,
// i8 inputs, residuals, i32 outputs — at several scratchpad sizes with every access checked;
// and the layout's pack/unpack round trip.
#include <gtest/gtest.h>

#include <random>

#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_conv.h"
#include "backends/dsp/dsp_executor.h"
#include "runtime/session.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

TEST(DspK4Layout, PackUnpackRoundTrip) {
  std::mt19937 rng(3);
  for (DType t : {DType::kI8, DType::kU8}) {
    const Shape shape = {5, 7, 3, 2};
    const HostTensor h = RandomCodes(rng, t, shape);
    EXPECT_EQ(LayoutByteSize(Layout::kDspK4, t, shape), 5u * 6 * 8);
    auto packed = PackLayout(Layout::kDspK4, t, shape, h.bytes.data(), h.bytes.size());
    ASSERT_TRUE(packed.ok());
    ASSERT_EQ(packed->size(), 5u * 6 * 8);
    // Element (oc 1, c 5, tap 4) sits at [1][4][1][1]; the padded channel 7 is 0.
    const uint8_t flip = t == DType::kU8 ? 0x80 : 0;
    EXPECT_EQ((*packed)[((1 * 6 + 4) * 2 + 1) * 4 + 1], h.bytes[(1 * 7 + 5) * 6 + 4] ^ flip);
    EXPECT_EQ((*packed)[((1 * 6 + 4) * 2 + 1) * 4 + 3], 0);
    auto back = UnpackLayout(Layout::kDspK4, t, shape, packed->data(), packed->size());
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, h.bytes);
  }
  EXPECT_TRUE(IsValidLayout(16));
  EXPECT_FALSE(IsValidLayout(8));  // kept for CPU int8 layouts, not defined
  EXPECT_FALSE(PackLayout(Layout::kDspK4, DType::kF32, {4, 4}, nullptr, 64).ok());
}

struct Case {
  int64_t c, h, w, m, k, stride, pad, dilation;
  DType x = DType::kU8;
  bool residual = false;
  DType out = DType::kU8;
};

// A small graph and its inputs.
using Model = PartitionModel;

// The convolution with its weights as `layout` (kPlain or kDspK4).
Model Make(const Case& cc, uint32_t seed, Layout layout) {
  Model md;
  Graph& g = *md.graph;
  std::mt19937 rng(seed);
  const ValueId x = AddOperand(
      g, {RandomCodes(rng, cc.x, {1, cc.c, cc.h, cc.w}), Zp(cc.x == DType::kU8 ? 41 : -6)}, "x",
      &md.feeds);
  QuantParams wq;
  wq.scales.assign(static_cast<size_t>(cc.m), 0.01);
  wq.zero_points.assign(static_cast<size_t>(cc.m), 0);
  wq.axis = 0;
  const HostTensor w = RandomCodes(rng, DType::kI8, {cc.m, cc.c, cc.k, cc.k}, -127, 127);
  auto packed = PackLayout(layout, w.dtype, w.shape, w.bytes.data(), w.bytes.size());
  EXPECT_TRUE(packed.ok());
  const ValueId wid = g.AddConstant("w", w.dtype, w.shape, ConstantBytes::FromVector(*packed));
  g.value(wid).layout = layout;
  g.value(wid).quant = wq;
  std::vector<int32_t> bias(static_cast<size_t>(cc.m));
  std::uniform_int_distribution<int32_t> bd(-9000, 9000);
  for (auto& v : bias) v = bd(rng);
  const ValueId b = AddOperand(g, {I32({cc.m}, bias), {}, true}, "b", &md.feeds);
  const int64_t oh = (cc.h + 2 * cc.pad - cc.dilation * (cc.k - 1) - 1) / cc.stride + 1;
  const int64_t ow = (cc.w + 2 * cc.pad - cc.dilation * (cc.k - 1) - 1) / cc.stride + 1;
  ValueId r = kNoValue;
  if (cc.residual) {
    r = AddOperand(g, {RandomCodes(rng, cc.x, {1, cc.m, oh, ow}), Zp(cc.x == DType::kU8 ? 99 : 3)},
                   "r", &md.feeds);
  }
  Attributes a;
  a.Set("strides", std::vector<int64_t>{cc.stride, cc.stride});
  a.Set("pads", std::vector<int64_t>{cc.pad, cc.pad, cc.pad, cc.pad});
  a.Set("dilations", std::vector<int64_t>{cc.dilation, cc.dilation});
  a.Set("out_dtype", std::string(DTypeName(cc.out)));
  ValueId y;
  if (cc.out == DType::kI32) {
    a.Set("qmin", int64_t{-300000});
    y = AddNode(g, OpType::kQConv, "conv", {x, wid, b, r, kNoValue}, {}, a);
  } else {
    a.Set("qmin", int64_t{cc.out == DType::kU8 ? 15 : -120});
    const ValueId rq = AddOperand(g, Requants(rng, cc.m, 40, 44), "rq", &md.feeds);
    std::vector<ValueId> ins = {x, wid, b, r, rq};
    if (cc.residual) ins.push_back(AddOperand(g, Requants(rng, cc.m, 10, 14), "rrq", &md.feeds));
    y = AddNode(g, OpType::kQConv, "conv", ins, Zp(cc.out == DType::kU8 ? 50 : 1), a);
  }
  g.outputs().push_back(y);
  return md;
}

std::vector<HostTensor> RunModel(const Model& md, std::vector<std::string> executors,
                                 uint32_t scratch, bool* on_dsp) {
  SessionOptions so;
  so.executors = std::move(executors);
  so.backend_options.Mutable<DspOptions>().scratch_bytes = scratch;
  so.backend_options.Mutable<DspOptions>().instrument = true;
  auto s = Session::Create(md.graph, so);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  auto out = (*s)->Run(md.feeds);
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  if (on_dsp) *on_dsp = (*s)->Placement()[0] == kExecutorDsp;
  return out.ok() ? std::move(out).value() : std::vector<HostTensor>{};
}

TEST(DspQuadConv, BitExactWithTheReferenceOnRandomShapes) {
  const std::vector<Case> cases = {
      {6, 13, 11, 10, 3, 1, 1, 1},                               // C not a multiple of 4
      {16, 17, 19, 24, 3, 2, 1, 1},                              // stride 2
      {8, 12, 21, 8, 3, 1, 2, 2},                                // dilation 2
      {3, 23, 19, 8, 3, 2, 1, 1, DType::kI8},                    // stem-like, i8 input
      {12, 9, 35, 12, 1, 1, 0, 1, DType::kU8, true},             // 1x1 with residual
      {5, 10, 10, 7, 5, 1, 2, 1, DType::kI8, true, DType::kI8},  // 5x5, i8 everything
      {9, 8, 8, 6, 3, 2, 1, 1, DType::kU8, false, DType::kI32},  // i32 out
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE("case " + std::to_string(i));
    const uint32_t seed = static_cast<uint32_t>(100 + i);
    const Model plain = Make(cases[i], seed, Layout::kPlain);
    const Model quads = Make(cases[i], seed, Layout::kDspK4);
    ASSERT_TRUE(DspK4Eligible(*quads.graph, quads.graph->node(0)));
    const auto want = RunModel(plain, {kExecutorCpu}, kDspDefaultScratchBytes, nullptr);
    ASSERT_EQ(want.size(), 1u);
    // The reference unpacks the layout: same bytes from the packed graph on the CPU.
    EXPECT_EQ(RunModel(quads, {kExecutorCpu}, kDspDefaultScratchBytes, nullptr)[0].bytes,
              want[0].bytes);
    for (uint32_t scratch : {256u * 1024, 32u * 1024, 8u * 1024}) {
      SCOPED_TRACE("scratchpad " + std::to_string(scratch));
      bool on_dsp = false;
      const auto got = RunModel(quads, {kExecutorDsp}, scratch, &on_dsp);
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].bytes, want[0].bytes);
      if (scratch >= 32u * 1024) {
        EXPECT_TRUE(on_dsp);
      }
    }
  }
}

}  // namespace
}  // namespace kiln
