// DMA/compute overlap on the DSP target: the two-engine cycle estimate, double-buffered QConv
// plans (bit-exact, with every access and every dependency checked by the instrumented run), and
// the hazard checker catching a prefetch that would overwrite a buffer a compute still reads.
#include <gtest/gtest.h>

#include <random>

#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_engine.h"
#include "backends/dsp/dsp_executor.h"
#include "runtime/session.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

// A small graph and its inputs.
using Model = PartitionModel;

// x [1, c, h, w] -> QConv k x k (c -> m), u8 out.
Model MakeConv(int64_t c, int64_t h, int64_t w, int64_t m, int64_t k, uint32_t seed) {
  Model md;
  Graph& g = *md.graph;
  std::mt19937 rng(seed);
  const ValueId x =
      AddOperand(g, {RandomCodes(rng, DType::kU8, {1, c, h, w}), Zp(17)}, "x", &md.feeds);
  QuantParams wq;
  wq.scales.assign(static_cast<size_t>(m), 0.01);
  wq.zero_points.assign(static_cast<size_t>(m), 0);
  wq.axis = 0;
  const ValueId wt = AddOperand(g, {RandomCodes(rng, DType::kI8, {m, c, k, k}, -80, 80), wq, true},
                                "w", &md.feeds);
  const ValueId rq = AddOperand(g, Requants(rng, m, 38, 42), "rq", &md.feeds);
  Attributes a;
  a.Set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  a.Set("out_dtype", std::string("u8"));
  const ValueId y = AddNode(g, OpType::kQConv, "conv", {x, wt, kNoValue, kNoValue, rq}, Zp(9), a);
  g.outputs().push_back(y);
  return md;
}

bool Prefetches(const DspProgram& p) {
  for (const DspCommand& c : p.commands) {
    if (c.kind == DspCmdKind::kDmaIn && c.dep >= 0) return true;
  }
  return false;
}

int64_t SerialSum(const DspProgram& p, const DspOp& op, const DspCostModel& cost) {
  int64_t sum = 0;
  for (const DspCommand& c : p.commands) {
    DspProgram one;
    one.scratch_bytes = p.scratch_bytes;
    one.commands = {c};
    one.commands[0].dep = -1;
    sum += DspProgramCycles(one, op, cost);
  }
  return sum;
}

// A 3x3 convolution big enough for several row tiles at 64 KiB, and its planned program.
struct Planned {
  Model md = MakeConv(32, 40, 40, 32, 3, 3);
  std::unique_ptr<DspOp> op;
  DspProgram program;
  Planned() {
    auto made = MakeDspOp(*md.graph, md.graph->node(0));
    EXPECT_TRUE(made.ok());
    if (!made.ok()) return;
    op = std::move(made).value();
    auto planned = op->Plan(64 * 1024);
    EXPECT_TRUE(planned.ok());
    if (planned.ok()) program = std::move(planned).value();
  }
};

TEST(DspOverlap, DoubleBufferedConvIsBitExactAndFaster) {
  Planned p;
  ASSERT_TRUE(p.op);
  const Model& md = p.md;
  auto* op = &p.op;
  auto* program = &p.program;
  ASSERT_TRUE(Prefetches(*program)) << "the planner chose no double buffering";
  const DspCostModel cost;
  const int64_t overlapped = DspProgramCycles(*program, **op, cost);
  EXPECT_LT(overlapped, SerialSum(*program, **op, cost));
  // A program without explicit dependencies runs serially: its estimate is the plain sum.
  DspProgram serial = *program;
  for (DspCommand& c : serial.commands) c.dep = -1;
  EXPECT_EQ(DspProgramCycles(serial, **op, cost), SerialSum(serial, **op, cost));

  // Bit-exact against the CPU reference, every access and dependency checked.
  SessionOptions ref;
  auto want = Session::Create(md.graph, ref);
  ASSERT_TRUE(want.ok());
  auto want_out = (*want)->Run(md.feeds);
  ASSERT_TRUE(want_out.ok());
  SessionOptions so;
  so.executors = {kExecutorDsp};
  so.backend_options.Mutable<DspOptions>().scratch_bytes = 64 * 1024;
  so.backend_options.Mutable<DspOptions>().instrument = true;
  auto s = Session::Create(md.graph, so);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto out = (*s)->Run(md.feeds);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].bytes, (*want_out)[0].bytes);
  const auto* stats = DspStatsOf(*(*s)->executor(kExecutorDsp));
  ASSERT_TRUE(stats && stats->size() == 1);
  EXPECT_EQ(stats->front()->cycles, overlapped);
}

TEST(DspOverlap, HazardCheckerCatchesAnEarlyCompute) {
  Planned p;
  ASSERT_TRUE(p.op);
  const Model& md = p.md;
  const Node& node = md.graph->node(0);
  auto* op = &p.op;
  auto* program = &p.program;
  // The second tile's compute made to wait only for the first command: it could read its slab
  // while the prefetch is still writing it.
  int computes = 0;
  DspProgram bad = *program;
  for (DspCommand& c : bad.commands) {
    if (c.kind == DspCmdKind::kCompute && ++computes == 2) c.dep = 0;
  }
  ASSERT_GE(computes, 2);
  const std::vector<uint64_t> bytes = DspOperandBytes(*md.graph, node);
  ASSERT_TRUE(ValidateDspProgram(bad, **op, bytes, node.inputs.size()).ok());
  std::vector<std::vector<uint8_t>> data;
  std::vector<DspOperand> operands;
  for (uint64_t b : bytes) data.emplace_back(b, 1);
  for (auto& d : data) operands.push_back({d.data(), d.size()});
  std::vector<uint8_t> memory(DspRunBytes(bad.scratch_bytes, true));
  DspCounters counters;
  DspAccessReport report;
  const Status st = RunDspProgram(bad, **op, operands, memory.data(), true, &counters, &report);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("may still be using"), std::string::npos) << st.ToString();
  // The planner's own program passes the same check.
  EXPECT_TRUE(
      RunDspProgram(*program, **op, operands, memory.data(), true, &counters, &report).ok());
}

}  // namespace
}  // namespace kiln
