// Fused DSP chains (backends/dsp/kernels/dsp_chain.h): MobileNet-style expand -> depthwise -> project
// chains run as one command stream, bit-identical to the CPU integer reference kernels at
// several scratchpad sizes with every access checked, with less DMA than their members run
// one by one; a memory plan that lets the chain's output reuse an early input's bytes makes
// the chain run unfused (still bit-identical), and the planner option that keeps those inputs
// live avoids it; the model file carries chains and the reader refuses malformed ones.
#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_chain.h"

#include <gtest/gtest.h>

#include <random>

#include "compiler/memory/memory_planner.h"
#include "backends/dsp/kernels/dsp_engine.h"
#include "backends/dsp/dsp_executor.h"
#include "runtime/session.h"
#include "serializer/container_reader.h"
#include "serializer/dsp_programs.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

struct Block {
  int64_t c = 8, h = 15, w = 13, expand = 3, stride = 1;
  bool residual = true;
  DType x = DType::kU8;
  DType out = DType::kU8;  // of the last convolution (i32: no requantization)
  // A QConv before the block and a lookup after it, so that x and the block's output are
  // arena values (graph inputs and outputs are not).
  bool inside = false;
};

struct BlockModel {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::vector<HostTensor> feeds;
  std::vector<int32_t> chain;  // the expand, depthwise and project nodes
};

ValueId Conv(Graph& g, std::mt19937& rng, const std::string& name, ValueId x, int64_t in_c,
             int64_t out_c, int64_t k, int64_t stride, int64_t group, DType out, ValueId residual,
             std::vector<HostTensor>* feeds) {
  QuantParams wq;
  wq.scales.assign(static_cast<size_t>(out_c), 0.01);
  wq.zero_points.assign(static_cast<size_t>(out_c), 0);
  wq.axis = 0;
  const ValueId w =
      AddOperand(g, {RandomCodes(rng, DType::kI8, {out_c, in_c / group, k, k}, -90, 90), wq, true},
                 name + ".w", feeds);
  std::vector<int32_t> bias(static_cast<size_t>(out_c));
  std::uniform_int_distribution<int32_t> bd(-3000, 3000);
  for (auto& v : bias) v = bd(rng);
  const ValueId b = AddOperand(g, {I32({out_c}, bias), {}, true}, name + ".b", feeds);
  Attributes a;
  a.Set("group", group);
  a.Set("strides", std::vector<int64_t>{stride, stride});
  const int64_t pad = k / 2;
  a.Set("pads", std::vector<int64_t>{pad, pad, pad, pad});
  a.Set("out_dtype", std::string(DTypeName(out)));
  if (out == DType::kI32) {
    a.Set("qmin", int64_t{-200000});
    return AddNode(g, OpType::kQConv, name, {x, w, b, residual, kNoValue}, {}, a);
  }
  a.Set("qmin", int64_t{out == DType::kU8 ? 12 : -110});
  const ValueId rq = AddOperand(g, Requants(rng, out_c, 36, 40), name + ".rq", feeds);
  std::vector<ValueId> ins = {x, w, b, residual, rq};
  if (residual != kNoValue)
    ins.push_back(AddOperand(g, Requants(rng, out_c, 8, 12), name + ".rrq", feeds));
  return AddNode(g, OpType::kQConv, name, ins, Zp(out == DType::kU8 ? 40 : 0), a);
}

BlockModel MakeBlock(const Block& b, uint32_t seed) {
  BlockModel m;
  Graph& g = *m.graph;
  std::mt19937 rng(seed);
  ValueId x =
      AddOperand(g, {RandomCodes(rng, b.x, {1, b.c, b.h, b.w}), Zp(b.x == DType::kU8 ? 30 : -3)},
                 "x", &m.feeds);
  if (b.inside) x = Conv(g, rng, "pre", x, b.c, b.c, 3, 1, 1, b.x, kNoValue, &m.feeds);
  const int64_t e = b.c * b.expand;
  const int32_t first = static_cast<int32_t>(g.num_nodes());
  const ValueId ex = Conv(g, rng, "expand", x, b.c, e, 1, 1, 1, DType::kU8, kNoValue, &m.feeds);
  const ValueId dw = Conv(g, rng, "dw", ex, e, e, 3, b.stride, e, DType::kI8, kNoValue, &m.feeds);
  const bool res = b.residual && b.stride == 1;
  ValueId y = Conv(g, rng, "project", dw, e, b.c, 1, 1, 1, b.out, res ? x : kNoValue, &m.feeds);
  if (b.inside) {
    const ValueId table =
        AddOperand(g, {RandomCodes(rng, DType::kU8, {256}), {}, true}, "table", &m.feeds);
    Attributes la;
    la.Set("out_dtype", std::string("u8"));
    y = AddNode(g, OpType::kQLookup, "lut", {y, table}, Zp(7), la);
  }
  g.outputs().push_back(y);
  m.chain = {first, first + 1, first + 2};
  return m;
}

struct Ran {
  std::vector<HostTensor> outputs;
  std::vector<DspNodeStats> stats;
};

Ran RunBlock(const BlockModel& m, std::vector<std::string> executors,
             std::shared_ptr<const DspProgramSet> programs, uint32_t replan_scratch = 0,
             std::shared_ptr<const ExecutionPlan> plan = nullptr) {
  SessionOptions so;
  so.executors = std::move(executors);
  so.backend_options.Mutable<DspOptions>().instrument = true;
  so.backend_options.Mutable<DspOptions>().programs = std::move(programs);
  if (replan_scratch) {
    so.backend_options.Mutable<DspOptions>().replan = true;
    so.backend_options.Mutable<DspOptions>().scratch_bytes = replan_scratch;
  }
  auto s = Session::Create(m.graph, so, std::move(plan));
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return {};
  Ran r;
  for (int i = 0; i < 2; ++i) {  // twice: the second run must not depend on leftovers
    auto out = (*s)->Run(m.feeds);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    if (!out.ok()) return {};
    r.outputs = std::move(out).value();
  }
  if (const Executor* dsp = (*s)->executor(kExecutorDsp)) {
    for (const auto& st : *DspStatsOf(*dsp)) r.stats.push_back(*st);
  }
  return r;
}

int64_t Dma(const std::vector<DspNodeStats>& stats) {
  int64_t bytes = 0;
  for (const auto& s : stats) bytes += s.counted.dma_in_bytes + s.counted.dma_out_bytes;
  return bytes;
}

const DspNodeStats* Find(const std::vector<DspNodeStats>& stats, const std::string& node) {
  for (const auto& s : stats) {
    if (s.node == node) return &s;
  }
  return nullptr;
}

TEST(DspChain, FusedBlocksBitExactWithLessDma) {
  const std::vector<Block> blocks = {
      {8, 15, 13, 3, 1, true},                            // residual block
      {8, 17, 12, 4, 2, false},                           // stride-2 depthwise
      {6, 9, 21, 3, 1, true, DType::kI8, DType::kU8},     // i8 input
      {8, 11, 10, 2, 1, false, DType::kU8, DType::kI32},  // i32 output, no requant
  };
  for (size_t i = 0; i < blocks.size(); ++i) {
    SCOPED_TRACE("block " + std::to_string(i));
    const BlockModel m = MakeBlock(blocks[i], static_cast<uint32_t>(40 + i));
    const Ran want = RunBlock(m, {kExecutorCpu}, nullptr);
    ASSERT_EQ(want.outputs.size(), 1u);
    for (uint32_t scratch : {256u * 1024, 32u * 1024, 8u * 1024}) {
      SCOPED_TRACE("scratchpad " + std::to_string(scratch));
      auto singles = std::make_shared<DspProgramSet>(PlanDspPrograms(*m.graph, {}, scratch));
      ASSERT_EQ(singles->by_node.size(), 3u);
      // The chain as the planner would choose it, and forced (the cost choice aside).
      auto chain = MakeDspChain(*m.graph, m.chain);
      ASSERT_TRUE(chain.ok()) << chain.status().ToString();
      auto program = (*chain)->Plan(scratch);
      ASSERT_TRUE(program.ok()) << program.status().ToString();
      program->members = m.chain;
      auto fused = std::make_shared<DspProgramSet>(*singles);
      fused->chains.emplace(m.chain.back(), std::move(program).value());

      const Ran own = RunBlock(m, {kExecutorDsp}, singles);
      const Ran got = RunBlock(m, {kExecutorDsp}, fused);
      ASSERT_EQ(got.outputs.size(), 1u);
      EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes);
      EXPECT_EQ(own.outputs[0].bytes, want.outputs[0].bytes);
      const DspNodeStats* last = Find(got.stats, "project");
      ASSERT_NE(last, nullptr);
      EXPECT_EQ(last->chain_length, 3);
      EXPECT_EQ(last->runs, 2);
      EXPECT_EQ(last->unfused_runs, 0);
      EXPECT_GT(last->access.scratch_reads_checked, 0);
      EXPECT_EQ(Find(got.stats, "expand")->fused_into, "project");
      EXPECT_EQ(Find(got.stats, "expand")->runs, 0);
      // The intermediates (expanded activations) never cross DMA.
      EXPECT_LT(Dma(got.stats), Dma(own.stats));
      EXPECT_EQ(last->counted.dma_out_bytes,
                2 * static_cast<int64_t>(want.outputs[0].bytes.size()));
    }
  }
}

TEST(DspChain, PlannerChoosesChainsByEstimatedCycles) {
  const BlockModel m = MakeBlock({16, 28, 28, 6, 1, true}, 7);
  auto always = [](std::span<const int32_t>) { return true; };
  const DspProgramSet set = PlanDspPrograms(*m.graph, {}, 256 * 1024, always);
  ASSERT_EQ(set.chains.size(), 1u);
  const DspProgram& chain = set.chains.begin()->second;
  EXPECT_EQ(chain.members, m.chain);
  EXPECT_LT(DspProgramSetCycles(*m.graph, set),
            DspProgramSetCycles(*m.graph, PlanDspPrograms(*m.graph, {}, 256 * 1024)));
  // A veto keeps every node on its own program.
  const DspProgramSet vetoed =
      PlanDspPrograms(*m.graph, {}, 256 * 1024, [](std::span<const int32_t>) { return false; });
  EXPECT_TRUE(vetoed.chains.empty());
  // Replanned for another scratchpad, the session still runs it bit-exactly.
  const Ran want = RunBlock(m, {kExecutorCpu}, nullptr);
  const Ran got = RunBlock(m, {kExecutorDsp}, std::make_shared<DspProgramSet>(set), 16 * 1024);
  ASSERT_EQ(got.outputs.size(), 1u);
  EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes);
}

TEST(DspChain, OverlappingMemoryPlanRunsUnfusedAndExtraReadsKeepInputs) {
  // x is an arena value (made by "pre"); without the expand's residual, the memory planner may
  // put the project's output over x once the expand has read it.
  const BlockModel m = MakeBlock({8, 15, 13, 3, 1, false, DType::kU8, DType::kU8, true}, 11);
  ASSERT_EQ(m.chain[0], 1);
  const Graph& g = *m.graph;
  const Schedule sched = Schedule::Sequential(g);
  const ValueId x = g.node(m.chain[0]).inputs[0];
  const ValueId y = g.node(m.chain[2]).outputs[0];
  auto overlaps = [&](const MemoryPlan& p) {
    const int64_t xo = p.offsets[static_cast<size_t>(x)], yo = p.offsets[static_cast<size_t>(y)];
    return yo >= 0 && xo >= 0 && xo < yo + static_cast<int64_t>(g.value(y).byte_size()) &&
           yo < xo + static_cast<int64_t>(g.value(x).byte_size());
  };
  auto chain = MakeDspChain(g, m.chain);
  ASSERT_TRUE(chain.ok());
  auto program = (*chain)->Plan(64 * 1024);
  ASSERT_TRUE(program.ok());
  program->members = m.chain;
  auto set = std::make_shared<DspProgramSet>(PlanDspPrograms(g, {}, 64 * 1024));
  set->chains.emplace(m.chain.back(), std::move(program).value());
  const Ran want = RunBlock(m, {kExecutorCpu}, nullptr);

  // Forced overlap: y placed exactly over x (valid for the unfused schedule: x is dead once
  // the expand ran).
  MemoryPlan forced = MemoryPlan::NoReuse(g);
  forced.offsets[static_cast<size_t>(y)] = forced.offsets[static_cast<size_t>(x)];
  uint64_t end = 0;
  for (size_t v = 0; v < g.num_values(); ++v) {
    if (forced.offsets[v] < 0) continue;
    end = std::max(end, static_cast<uint64_t>(forced.offsets[v]) +
                            g.value(static_cast<ValueId>(v)).byte_size());
  }
  forced.arena_bytes =
      (end + MemoryPlan::kAlignment - 1) / MemoryPlan::kAlignment * MemoryPlan::kAlignment;
  ASSERT_TRUE(overlaps(forced));
  {
    const Ran got = RunBlock(m, {kExecutorDsp}, set, 0,
                             std::make_shared<ExecutionPlan>(ExecutionPlan{sched, forced}));
    ASSERT_EQ(got.outputs.size(), 1u);
    EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes);
    EXPECT_EQ(Find(got.stats, "project")->unfused_runs, 2);
  }
  // The planner keeping x until the project ran never overlaps them.
  MemoryPlannerOptions mo;
  mo.extra_reads = {{x, m.chain.back()}};
  auto kept = PlanMemory(g, sched, mo);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_FALSE(overlaps(*kept));
  const Ran got = RunBlock(m, {kExecutorDsp}, set, 0,
                           std::make_shared<ExecutionPlan>(ExecutionPlan{sched, *kept}));
  ASSERT_EQ(got.outputs.size(), 1u);
  EXPECT_EQ(got.outputs[0].bytes, want.outputs[0].bytes);
  EXPECT_EQ(Find(got.stats, "project")->unfused_runs, 0);
  EXPECT_EQ(Find(got.stats, "project")->chain_length, 3);
}

TEST(DspChain, MembersMustFormAChain) {
  const BlockModel m = MakeBlock({8, 15, 13, 3, 1, true}, 5);
  EXPECT_FALSE(MakeDspChain(*m.graph, std::vector<int32_t>{0, 2}).ok());  // not consecutive
  EXPECT_FALSE(MakeDspChain(*m.graph, std::vector<int32_t>{1, 0}).ok());
  EXPECT_FALSE(MakeDspChain(*m.graph, std::vector<int32_t>{0}).ok());
  EXPECT_TRUE(MakeDspChain(*m.graph, std::vector<int32_t>{1, 2}).ok());
  // A compute command naming no member is refused before it runs.
  auto chain = MakeDspChain(*m.graph, m.chain);
  ASSERT_TRUE(chain.ok());
  auto program = (*chain)->Plan(256 * 1024);
  ASSERT_TRUE(program.ok());
  for (DspCommand& c : program->commands) {
    if (c.kind == DspCmdKind::kCompute) c.tile[5] = 3;
  }
  const std::vector<uint64_t> bytes = DspChainOperandBytes(*m.graph, m.chain);
  EXPECT_FALSE(ValidateDspProgram(*program, **chain, bytes, (*chain)->num_inputs()).ok());
}

TEST(DspChain, SectionCarriesChainsAndRefusesMalformedOnes) {
  const BlockModel m = MakeBlock({8, 15, 13, 3, 1, true}, 9);
  auto always = [](std::span<const int32_t>) { return true; };
  const DspProgramSet set = PlanDspPrograms(*m.graph, {}, 64 * 1024, always);
  ASSERT_EQ(set.chains.size(), 1u);
  auto read = [&](const DspProgramSet& s) {
    std::vector<uint8_t> bytes = format::WriteDspProgramsSection(s);
    format::SectionBytes section{nullptr, bytes.data(), bytes.size()};
    return format::ReadDspPrograms(section, m.graph->num_nodes());
  };
  auto back = read(set);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_EQ(back->chains.size(), 1u);
  EXPECT_EQ(back->chains.begin()->second.members, m.chain);
  EXPECT_EQ(back->chains.begin()->second.commands.size(),
            set.chains.begin()->second.commands.size());
  EXPECT_EQ(back->by_node.size(), 3u);
  DspProgramSet bad = set;
  bad.chains.begin()->second.members = {0, 2};  // not the nodes ending at the chain's node
  EXPECT_EQ(read(bad).status().code(), StatusCode::kDataLoss);
  bad = set;
  bad.chains.begin()->second.members = {2};
  EXPECT_EQ(read(bad).status().code(), StatusCode::kDataLoss);
  bad = set;
  bad.by_node.begin()->second.members = {0, 1};  // a node program listing members
  EXPECT_EQ(read(bad).status().code(), StatusCode::kDataLoss);
  bad = set;
  DspProgram overlapping = set.chains.begin()->second;
  overlapping.members = {0, 1};  // shares node 1 with the chain of 0, 1, 2
  bad.chains.emplace(1, overlapping);
  EXPECT_EQ(read(bad).status().code(), StatusCode::kDataLoss);
}

}  // namespace
}  // namespace kiln
