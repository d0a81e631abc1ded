// The DSP executor against the CPU integer reference kernels: random single-op quantized graphs
// run bit-identically at the default scratchpad, at 32 KiB and at the smallest size, with the
// instrumented mode on (every DMA row and scratchpad read checked); programs that break the
// target's rules are refused before they run or caught while they run.
#include "backends/dsp/dsp_executor.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "backends/dsp/dsp_options.h"
#include "ir/op_schema.h"
#include "backends/dsp/kernels/dsp_engine.h"
#include "kernels/reference/quantized_util.h"
#include "runtime/session.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

struct Built {
  std::shared_ptr<Graph> graph;
  std::vector<HostTensor> feeds;
};

// `out`: the output dtype of the quantized ops (their out_dtype attribute, unless given).
Built Build(OpType op, const Attributes& attrs, const std::vector<Operand>& ins,
            const QuantParams& out_q, DType out_type = DType::kU8) {
  Built b{std::make_shared<Graph>(), {}};
  Graph& g = *b.graph;
  Node node;
  node.name = "op";
  node.op = op;
  node.attrs = attrs;
  if (op != OpType::kMaxPool && op != OpType::kConcat && !attrs.Has("out_dtype")) {
    node.attrs.Set("out_dtype", std::string(DTypeName(out_type)));
  }
  for (size_t i = 0; i < ins.size(); ++i) {
    node.inputs.push_back(AddOperand(g, ins[i], "in" + std::to_string(i), &b.feeds));
  }
  Value out;
  out.name = "out";
  out.quant = out_q;
  const ValueId oid = g.AddValue(out);
  node.outputs.push_back(oid);
  g.outputs().push_back(oid);
  g.AddNode(std::move(node));
  const Status st = InferNode(g, 0);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return b;
}

struct Ran {
  std::vector<HostTensor> outputs;
  std::string placement;
  DspNodeStats stats;
};

Ran RunWith(const Built& b, std::vector<std::string> executors, uint32_t scratch) {
  SessionOptions so;
  so.executors = std::move(executors);
  so.backend_options.Mutable<DspOptions>().scratch_bytes = scratch;
  so.backend_options.Mutable<DspOptions>().instrument = true;
  auto s = Session::Create(b.graph, so);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  Ran r;
  for (int i = 0; i < 2; ++i) {  // twice: a second run must not depend on leftovers
    auto out = (*s)->Run(b.feeds);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (!out.ok()) return {};
    r.outputs = std::move(out).value();
  }
  r.placement = (*s)->Placement()[0];
  if (const Executor* dsp = (*s)->executor(kExecutorDsp)) {
    const auto* stats = DspStatsOf(*dsp);
    if (stats && !stats->empty()) r.stats = *stats->front();
  }
  return r;
}

// The node runs on the DSP (where a tiling fits) with the reference's exact bytes.
void ExpectBitExact(const Built& b, const std::string& what) {
  const Ran want = RunWith(b, {kExecutorCpu}, kDspDefaultScratchBytes);
  ASSERT_EQ(want.outputs.size(), 1u);
  for (uint32_t scratch : {kDspDefaultScratchBytes, 32u * 1024, kDspMinScratchBytes}) {
    SCOPED_TRACE(what + ", scratchpad " + std::to_string(scratch));
    const Ran got = RunWith(b, {kExecutorDsp}, scratch);
    ASSERT_EQ(got.outputs.size(), 1u);
    if (scratch != kDspMinScratchBytes) {
      ASSERT_EQ(got.placement, kExecutorDsp);
    }
    EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes);
    if (got.placement != kExecutorDsp) continue;
    // The engine counted what the program declares, on both runs; the checks ran.
    EXPECT_EQ(got.stats.runs, 2);
    EXPECT_EQ(got.stats.counted.dma_in_bytes, 2 * got.stats.planned.dma_in_bytes);
    EXPECT_EQ(
        got.stats.counted.dma_out_bytes,
        2 * static_cast<int64_t>(got.outputs[0].bytes.size()) *
            (got.stats.planned.dma_out_bytes / static_cast<int64_t>(got.outputs[0].bytes.size())));
    EXPECT_GE(got.stats.planned.dma_out_bytes, static_cast<int64_t>(got.outputs[0].bytes.size()));
    EXPECT_GT(got.stats.access.dma_rows_checked, 0);
    EXPECT_GT(got.stats.access.scratch_reads_checked, 0);
  }
}

struct ConvCase {
  int64_t n, c, h, w, m, k, stride, pad, group, dilation;
  DType x = DType::kU8;
  bool residual = false;
  DType out = DType::kU8;
};

Built MakeConv(const ConvCase& cc, uint32_t seed) {
  std::mt19937 rng(seed);
  Attributes a;
  a.Set("group", cc.group);
  a.Set("strides", std::vector<int64_t>{cc.stride, cc.stride});
  a.Set("pads", std::vector<int64_t>{cc.pad, cc.pad, cc.pad, cc.pad});
  a.Set("dilations", std::vector<int64_t>{cc.dilation, cc.dilation});
  a.Set("out_dtype", std::string(DTypeName(cc.out)));
  std::vector<Operand> ins;
  ins.push_back(
      {RandomCodes(rng, cc.x, {cc.n, cc.c, cc.h, cc.w}), Zp(cc.x == DType::kU8 ? 37 : -5)});
  QuantParams wq;
  wq.scales.assign(static_cast<size_t>(cc.m), 0.01);
  wq.zero_points.assign(static_cast<size_t>(cc.m), 0);
  wq.axis = 0;
  wq.zero_points[0] = 3;  // a per-channel weight zero point
  ins.push_back(
      {RandomCodes(rng, DType::kI8, {cc.m, cc.c / cc.group, cc.k, cc.k}, -127, 127), wq, true});
  std::vector<int32_t> bias(static_cast<size_t>(cc.m));
  std::uniform_int_distribution<int32_t> bd(-5000, 5000);
  for (auto& v : bias) v = bd(rng);
  ins.push_back({I32({cc.m}, bias), {}, true});
  const int64_t oh = (cc.h + 2 * cc.pad - cc.dilation * (cc.k - 1) - 1) / cc.stride + 1;
  const int64_t ow = (cc.w + 2 * cc.pad - cc.dilation * (cc.k - 1) - 1) / cc.stride + 1;
  if (cc.residual) {
    ins.push_back({RandomCodes(rng, cc.x, {cc.n, cc.m, oh, ow}), Zp(cc.x == DType::kU8 ? 120 : 4)});
  } else {
    ins.push_back({HostTensor(), {}, false, true});
  }
  if (cc.out == DType::kI32) {
    a.Set("qmin", int64_t{-100000});
    ins.push_back({HostTensor(), {}, false, true});
    return Build(OpType::kQConv, a, ins, {});
  }
  a.Set("qmin", int64_t{cc.out == DType::kU8 ? 20 : -100});
  ins.push_back(Requants(rng, seed % 2 ? cc.m : 1, 38, 44));
  if (cc.residual) ins.push_back(Requants(rng, cc.m, 10, 14));
  return Build(OpType::kQConv, a, ins, Zp(cc.out == DType::kU8 ? 60 : 0));
}

TEST(DspExecutor, QConvBitExactAcrossScratchpads) {
  const std::vector<ConvCase> cases = {
      {1, 3, 23, 19, 8, 3, 2, 1, 1, 1},                    // stem-like, stride 2
      {1, 16, 14, 14, 16, 3, 1, 1, 16, 1},                 // depthwise
      {2, 8, 9, 11, 12, 1, 1, 0, 1, 1, DType::kU8, true},  // 1x1 + residual
      {1, 8, 12, 12, 6, 3, 1, 2, 2, 2, DType::kI8},        // grouped, dilated, i8
      {1, 64, 20, 20, 96, 3, 1, 1, 1, 1},                  // needs channel+row tiles
      {1, 24, 16, 16, 24, 5, 2, 2, 24, 1, DType::kU8, false, DType::kI8},
      {1, 12, 7, 7, 10, 3, 1, 1, 1, 1, DType::kU8, false, DType::kI32},  // raw accumulator
  };
  for (size_t i = 0; i < cases.size(); ++i) {
    ExpectBitExact(MakeConv(cases[i], static_cast<uint32_t>(i + 1)),
                   "conv case " + std::to_string(i));
  }
}

TEST(DspExecutor, QGemmBitExact) {
  for (int tb = 0; tb < 2; ++tb) {
    for (DType out : {DType::kU8, DType::kI32}) {
      std::mt19937 rng(11 + tb);
      const int64_t m = 3, k = 700, n = 90;
      Attributes a;
      a.Set("transB", int64_t{tb});
      a.Set("out_dtype", std::string(DTypeName(out)));
      std::vector<Operand> ins;
      ins.push_back({RandomCodes(rng, DType::kU8, {m, k}), Zp(128)});
      QuantParams bq;
      bq.scales = {0.01};
      bq.zero_points = {0};
      ins.push_back(
          {RandomCodes(rng, DType::kI8, tb ? Shape{n, k} : Shape{k, n}, -60, 60), bq, true});
      std::vector<int32_t> bias(static_cast<size_t>(n), 77);
      ins.push_back({I32({n}, bias), {}, true});
      if (out == DType::kU8) {
        ins.push_back(Requants(rng, n, 40, 44));
        ExpectBitExact(Build(OpType::kQGemm, a, ins, Zp(100)), "gemm");
      } else {
        ExpectBitExact(Build(OpType::kQGemm, a, ins, {}), "gemm i32");
      }
    }
  }
}

TEST(DspExecutor, ElementwiseAndLookupBitExact) {
  std::mt19937 rng(3);
  const Shape s = {1, 24, 40, 40};  // 38,400 elements: several tiles at 32 KiB
  for (OpType op : {OpType::kQAdd, OpType::kQMul}) {
    Attributes a;
    a.Set("qmin", int64_t{10});
    std::vector<Operand> ins = {
        {RandomCodes(rng, DType::kU8, s), Zp(100)},
        {RandomCodes(rng, DType::kU8, s), Zp(20)},
        Requants(rng, op == OpType::kQAdd ? 3 : 1, op == OpType::kQAdd ? 21 : 8,
                 op == OpType::kQAdd ? 22 : 10)};
    ExpectBitExact(Build(op, a, ins, Zp(90)), std::string(OpTypeName(op)));
  }
  HostTensor table = RandomCodes(rng, DType::kI8, {256});
  ExpectBitExact(
      Build(OpType::kQLookup, {}, {{RandomCodes(rng, DType::kI8, s), Zp(0)}, {table, {}, true}},
            Zp(0), DType::kI8),
      "lookup");
}

// One operand per channel ([1, C, 1, 1] or [C, 1, 1]) against [N, C, H, W], either side.
TEST(DspExecutor, BroadcastAddAndMulBitExact) {
  std::mt19937 rng(8);
  const Shape full = {2, 24, 30, 30};
  for (OpType op : {OpType::kQAdd, OpType::kQMul}) {
    for (const Shape& small : {Shape{1, 24, 1, 1}, Shape{24, 1, 1}, Shape{2, 24, 1, 1}}) {
      for (int side = 0; side < 2; ++side) {
        Operand f{RandomCodes(rng, DType::kU8, full), Zp(100)};
        Operand c{RandomCodes(rng, DType::kU8, small), Zp(20), side == 0};
        const Operand rq = Requants(rng, op == OpType::kQAdd ? 3 : 1, op == OpType::kQAdd ? 21 : 8,
                                    op == OpType::kQAdd ? 22 : 10);
        std::vector<Operand> ins =
            side == 0 ? std::vector<Operand>{f, c, rq} : std::vector<Operand>{c, f, rq};
        ExpectBitExact(Build(op, {}, ins, Zp(90)), std::string(OpTypeName(op)) + " broadcast " +
                                                       ShapeToString(small) +
                                                       (side == 0 ? " as b" : " as a"));
      }
    }
  }
}

TEST(DspExecutor, ConcatBitExact) {
  std::mt19937 rng(12);
  Attributes a;
  a.Set("axis", int64_t{1});
  // Three inputs of different parameters along channels: several tiles at 4 KiB (a block of
  // 40 x 40 bytes does not fit half of it: column chunks).
  std::vector<Operand> ins = {{RandomCodes(rng, DType::kU8, {2, 3, 40, 40}), Zp(10)},
                              {RandomCodes(rng, DType::kU8, {2, 5, 40, 40}), Zp(200)},
                              {RandomCodes(rng, DType::kI8, {2, 1, 40, 40}), Zp(-3)},
                              Requants(rng, 3, 30, 31)};
  ExpectBitExact(Build(OpType::kQConcat, a, ins, Zp(60)), "qconcat");
  Attributes last;
  last.Set("axis", int64_t{-1});
  ExpectBitExact(Build(OpType::kConcat, last,
                       {{RandomCodes(rng, DType::kI8, {3, 7, 5}), Zp(0)},
                        {RandomCodes(rng, DType::kI8, {3, 7, 9}), Zp(0)}},
                       Zp(0), DType::kI8),
                 "concat");
}

TEST(DspExecutor, PoolsBitExact) {
  std::mt19937 rng(5);
  const Shape s = {2, 10, 17, 15};
  ExpectBitExact(Build(OpType::kQGlobalAveragePool, {},
                       {{RandomCodes(rng, DType::kU8, s), Zp(7)}, Requants(rng, 1, 36, 38)}, Zp(3)),
                 "gap");
  Attributes wide;
  wide.Set("out_dtype", std::string("i32"));
  ExpectBitExact(
      Build(OpType::kQGlobalAveragePool, wide, {{RandomCodes(rng, DType::kU8, s), Zp(7)}}, {}),
      "gap i32");
  for (int include_pad = 0; include_pad < 2; ++include_pad) {
    Attributes a;
    a.Set("kernel_shape", std::vector<int64_t>{3, 3});
    a.Set("strides", std::vector<int64_t>{2, 2});
    a.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
    a.Set("count_include_pad", int64_t{include_pad});
    ExpectBitExact(
        Build(OpType::kQAveragePool, a,
              {{RandomCodes(rng, DType::kU8, s), Zp(7)}, Requants(rng, 9, 30, 33)}, Zp(5)),
        "avgpool");
  }
  Attributes mp;
  mp.Set("kernel_shape", std::vector<int64_t>{3, 3});
  mp.Set("strides", std::vector<int64_t>{2, 2});
  mp.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  ExpectBitExact(Build(OpType::kMaxPool, mp, {{RandomCodes(rng, DType::kI8, s), Zp(3)}}, Zp(3)),
                 "maxpool");
}

// A node whose operands cannot fit even one tile stays on the CPU, with the reason.
TEST(DspExecutor, FallsBackWhenNoTileFits) {
  const Built b = MakeConv({1, 512, 8, 8, 4, 3, 1, 1, 1, 1}, 9);
  const auto reason = DspFallbackReason(*b.graph, b.graph->node(0), kDspMinScratchBytes);
  ASSERT_TRUE(reason.has_value());
  EXPECT_NE(reason->find("scratchpad"), std::string::npos) << *reason;
  const Ran r = RunWith(b, {kExecutorDsp}, kDspMinScratchBytes);
  EXPECT_EQ(r.placement, kExecutorCpu);
}

// Programs that break the rules: refused by validation, or caught by the instrumented run.
TEST(DspEngine, RefusesAndCatchesBadPrograms) {
  const Built b = MakeConv({1, 8, 10, 10, 8, 3, 1, 1, 1, 1}, 4);
  const Node& node = b.graph->node(0);
  auto op = MakeDspOp(*b.graph, node);
  ASSERT_TRUE(op.ok());
  auto program = (*op)->Plan(32 * 1024);
  ASSERT_TRUE(program.ok());
  const std::vector<uint64_t> bytes = DspOperandBytes(*b.graph, node);
  const size_t ni = node.inputs.size();
  ASSERT_TRUE(ValidateDspProgram(*program, **op, bytes, ni).ok());
  auto first_of = [&](DspProgram& p, DspCmdKind k) -> DspCommand& {
    for (auto& c : p.commands) {
      if (c.kind == k) return c;
    }
    return p.commands.front();
  };
  {
    DspProgram bad = *program;
    first_of(bad, DspCmdKind::kDmaIn).main_offset += bytes[0];
    EXPECT_FALSE(ValidateDspProgram(bad, **op, bytes, ni).ok());
  }
  {
    DspProgram bad = *program;
    first_of(bad, DspCmdKind::kDmaOut).scratch_offset = bad.scratch_bytes - 1;
    EXPECT_FALSE(ValidateDspProgram(bad, **op, bytes, ni).ok());
  }
  {
    DspProgram bad = *program;
    first_of(bad, DspCmdKind::kCompute).tile[2] = 1000;  // channels beyond the output
    EXPECT_FALSE(ValidateDspProgram(bad, **op, bytes, ni).ok());
  }
  {
    DspProgram bad = *program;
    DspCommand& in = first_of(bad, DspCmdKind::kDmaIn);
    in.row_bytes = 0;  // empty rows: work without data
    EXPECT_FALSE(ValidateDspProgram(bad, **op, bytes, ni).ok());
    in = first_of(*program, DspCmdKind::kDmaIn);
    in.main_stride = 0;
    in.rows = 1u << 25;  // the same bytes re-read 32 million times
    EXPECT_FALSE(ValidateDspProgram(bad, **op, bytes, ni).ok());
  }
  {
    DspProgram bad = *program;
    first_of(bad, DspCmdKind::kCompute).buf[6] += 2;  // a misaligned accumulator
    EXPECT_FALSE(ValidateDspProgram(bad, **op, bytes, ni).ok());
  }
  {
    DspProgram bad = *program;
    first_of(bad, DspCmdKind::kDmaOut).kind = DspCmdKind::kDmaIn;  // output never written
    EXPECT_FALSE(ValidateDspProgram(bad, **op, bytes, ni).ok());
  }
  {
    // Valid geometry, but the input slab is never brought in: only the instrumented run sees
    // the compute reading scratchpad bytes nothing wrote.
    DspProgram bad = *program;
    DspCommand& in = first_of(bad, DspCmdKind::kDmaIn);
    for (auto& c : bad.commands) {
      if (c.kind == DspCmdKind::kDmaIn && c.operand == 0) {
        c = in;  // replace the input DMA by a copy of the weight DMA
        break;
      }
    }
    ASSERT_TRUE(ValidateDspProgram(bad, **op, bytes, ni).ok());
    std::vector<uint8_t> x(bytes[0], 1), y(bytes.back());
    std::vector<DspOperand> operands(bytes.size());
    operands[0] = {x.data(), bytes[0]};
    for (size_t s = 1; s < ni; ++s) {
      if (node.inputs[s] != kNoValue && b.graph->value(node.inputs[s]).is_constant()) {
        operands[s] = {const_cast<uint8_t*>(b.graph->value(node.inputs[s]).constant->data()),
                       bytes[s]};
      }
    }
    operands.back() = {y.data(), bytes.back()};
    std::vector<uint8_t> memory(DspRunBytes(bad.scratch_bytes, true));
    DspCounters counters;
    DspAccessReport report;
    const Status st = RunDspProgram(bad, **op, operands, memory.data(), true, &counters, &report);
    EXPECT_EQ(st.code(), StatusCode::kInternal) << st.ToString();
    EXPECT_NE(st.message().find("no DMA-in or compute wrote"), std::string::npos) << st.ToString();
    // The genuine program passes the same checks.
    counters = {};
    EXPECT_TRUE(
        RunDspProgram(*program, **op, operands, memory.data(), true, &counters, &report).ok());
  }
}

}  // namespace
}  // namespace kiln
