// The DSP section of the model file (kind 8): command streams written by the toolchain round-trip
// through the loader and are the ones the executor runs; a tampered program is refused when the
// session starts (never run), and a malformed section when the file loads.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "backends/dsp/dsp_executor.h"
#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_op.h"
#include "ir/op_schema.h"
#include "runtime/model.h"
#include "runtime/session.h"
#include "serializer/container_reader.h"
#include "serializer/dsp_programs.h"
#include "serializer/model_writer.h"
#include "tests/dsp/dsp_test_util.h"

namespace kiln {
namespace {

using namespace dsptest;  // NOLINT

struct Conv {
  std::shared_ptr<Graph> graph = std::make_shared<Graph>();
  std::vector<HostTensor> feeds;
};

// x [1, 16, 24, 24] u8 -> QConv 3x3, 24 output channels -> y
Conv MakeConvGraph() {
  Conv c;
  Graph& g = *c.graph;
  std::mt19937 rng(17);
  QuantParams wq;
  wq.scales = {0.01};
  wq.zero_points = {0};
  Node n;
  n.name = "conv";
  n.op = OpType::kQConv;
  n.attrs.Set("pads", std::vector<int64_t>{1, 1, 1, 1});
  n.attrs.Set("out_dtype", std::string("u8"));
  n.inputs = {AddOperand(g, {RandomCodes(rng, DType::kU8, {1, 16, 24, 24}), Zp(9)}, "x", &c.feeds),
              AddOperand(g, {RandomCodes(rng, DType::kI8, {24, 16, 3, 3}, -60, 60), wq, true}, "w",
                         &c.feeds),
              kNoValue, kNoValue, AddOperand(g, Requants(rng, 24, 40, 42), "rq", &c.feeds)};
  Value y;
  y.name = "y";
  y.quant = Zp(4);
  n.outputs = {g.AddValue(y)};
  g.outputs().push_back(n.outputs[0]);
  g.AddNode(std::move(n));
  EXPECT_TRUE(InferNode(g, 0).ok());
  return c;
}

Expected<std::shared_ptr<const Model>> LoadImage(std::vector<uint8_t> image) {
  auto owner = std::make_shared<std::vector<uint8_t>>(std::move(image));
  LoadOptions lo;
  lo.allow_unsigned = true;
  return Model::LoadFromMemory(owner, owner->data(), owner->size(), TrustStore(), lo);
}

Expected<std::vector<uint8_t>> Serialize(const Graph& g, const DspProgramSet& programs) {
  WriteOptions wo;
  wo.dsp_programs = &programs;
  return SerializeModel(g, wo);
}

TEST(DspModelFile, ProgramsRoundTripAndRun) {
  const Conv c = MakeConvGraph();
  const DspProgramSet programs = PlanDspPrograms(*c.graph, {}, 8 * 1024);  // several tiles
  ASSERT_EQ(programs.by_node.size(), 1u);
  auto image = Serialize(*c.graph, programs);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  auto model = LoadImage(*image);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_TRUE((*model)->dsp_programs());
  EXPECT_EQ((*model)->info().dsp_programs, 1u);
  const DspProgram& want = programs.by_node.at(0);
  const DspProgram& got = (*model)->dsp_programs()->by_node.at(0);
  ASSERT_EQ(got.commands.size(), want.commands.size());
  EXPECT_EQ(got.scratch_bytes, want.scratch_bytes);
  for (size_t i = 0; i < got.commands.size(); ++i) {
    const DspCommand &a = got.commands[i], &b = want.commands[i];
    EXPECT_TRUE(a.kind == b.kind && a.operand == b.operand && a.rows == b.rows &&
                a.row_bytes == b.row_bytes && a.scratch_offset == b.scratch_offset &&
                a.scratch_stride == b.scratch_stride && a.dep == b.dep &&
                a.main_offset == b.main_offset && a.main_stride == b.main_stride &&
                std::memcmp(a.tile, b.tile, sizeof(a.tile)) == 0 &&
                std::memcmp(a.buf, b.buf, sizeof(a.buf)) == 0)
        << "command " << i;
  }
  // The session runs the file's program (8 KiB tiles, though its own default is 256 KiB).
  SessionOptions so;
  so.executors = {kExecutorDsp};
  so.backend_options.Mutable<DspOptions>().instrument = true;
  auto s = Session::Create(**model, so);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto out = (*s)->Run(c.feeds);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const auto* stats = DspStatsOf(*(*s)->executor(kExecutorDsp));
  ASSERT_TRUE(stats && stats->size() == 1);
  EXPECT_TRUE(stats->front()->from_file);
  EXPECT_EQ(stats->front()->scratch_bytes, 8u * 1024);
  auto ref = Session::Create(c.graph, SessionOptions{});
  ASSERT_TRUE(ref.ok());
  auto want_out = (*ref)->Run(c.feeds);
  ASSERT_TRUE(want_out.ok());
  EXPECT_EQ((*out)[0].bytes, (*want_out)[0].bytes);
}

TEST(DspModelFile, TamperedProgramIsRefusedBeforeItRuns) {
  const Conv c = MakeConvGraph();
  DspProgramSet programs = PlanDspPrograms(*c.graph, {}, 8 * 1024);
  for (auto& cmd : programs.by_node.at(0).commands) {
    if (cmd.kind == DspCmdKind::kDmaIn && cmd.operand == 0) {
      cmd.main_offset = uint64_t{1} << 40;  // far outside the input
      break;
    }
  }
  auto image = Serialize(*c.graph, programs);
  ASSERT_TRUE(image.ok());
  auto model = LoadImage(*image);
  ASSERT_TRUE(model.ok()) << model.status().ToString();  // the encoding is fine
  SessionOptions so;
  so.executors = {kExecutorDsp};
  so.on_accelerator_failure = AcceleratorFailure::kFail;
  auto s = Session::Create(**model, so);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument) << s.status().ToString();
  EXPECT_NE(s.status().message().find("DSP command stream"), std::string::npos)
      << s.status().ToString();

  // By default the DSP's refusal moves its nodes to the CPU: the program never runs, and the
  // session says why.
  so.on_accelerator_failure = AcceleratorFailure::kFallBackToCpu;
  auto fallback = Session::Create(**model, so);
  ASSERT_TRUE(fallback.ok()) << fallback.status().ToString();
  for (const std::string& placed : (*fallback)->Placement()) {
    if (placed != "-") {
      EXPECT_EQ(placed, kExecutorCpu);
    }
  }
  ASSERT_FALSE((*fallback)->warnings().empty());
  EXPECT_NE((*fallback)->warnings()[0].find("DSP command stream"), std::string::npos)
      << (*fallback)->warnings()[0];
}

TEST(DspModelFile, MalformedSectionsAreRefusedAtLoad) {
  const Conv c = MakeConvGraph();
  {
    DspProgramSet bad;
    bad.by_node[7] = DspProgram{};  // the graph has one node
    auto image = Serialize(*c.graph, bad);
    ASSERT_TRUE(image.ok());
    auto model = LoadImage(*image);
    ASSERT_FALSE(model.ok());
    EXPECT_EQ(model.status().code(), StatusCode::kDataLoss) << model.status().ToString();
  }
  {
    // Garbage in place of the flatbuffer: replace the section's bytes in a re-assembled file.
    auto bytes = format::WriteDspProgramsSection(PlanDspPrograms(*c.graph, {}, 8 * 1024));
    for (size_t i = 0; i < bytes.size(); i += 7) bytes[i] ^= 0x5a;
    format::SectionBytes section{nullptr, bytes.data(), bytes.size()};
    auto read = format::ReadDspPrograms(section, 1);
    EXPECT_FALSE(read.ok());
  }
}

}  // namespace
}  // namespace kiln
