// Sessions on the OpenCL executor: CPU fallback with copies only at placement boundaries,
// aliases of the memory plan across memory domains (elided views and Concat slices, in-place
// ops), several streams with cross-stream events, profiling from event timestamps, a missing
// device, the program-binary cache (hits, stale entries) and binaries embedded in a signed
// model file. ctest -L opencl.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "backends/opencl/gpu_options.h"
#include "compiler/pipeline.h"
#include "ir/execution_plan.h"
#include "runtime/model.h"
#include "backends/opencl/opencl_executor.h"
#include "runtime/session.h"
#include "serializer/model_writer.h"
#include "tests/graph_builder.h"
#include "tests/opencl/opencl_test_util.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using testing::Attrs;
using testing::ExpectClose;
using testing::GraphBuilder;
using testing::RandomInputs;
using testing::RunGraph;
using testing::RunOnGpu;

#define REQUIRE_DEVICE() \
  if (!testing::HaveOpenClDevice()) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)"

ValueId Conv(GraphBuilder& b, const std::string& name, ValueId x, int64_t m, int64_t c) {
  return b.Op(
      OpType::kFusedConv, name, {x, b.Const(name + ".w", {m, c, 3, 3}), b.Const(name + ".b", {m})},
      Attrs({{"pads", std::vector<int64_t>{1, 1, 1, 1}}, {"activation", std::string("relu")}}));
}

// conv (GPU) -> reflect Pad (no GPU kernel: CPU; a zero one would fold into the conv) -> conv
// (GPU), and a second branch whose Concat and Reshape the planner elides, with parts from
// both domains.
Graph MixedGraph() {
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 3, 12, 12});
  const ValueId a = Conv(b, "a", x, 8, 3);
  const ValueId padded =
      b.Op(OpType::kPad, "pad", {a, b.ConstI64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1})},
           Attrs({{"mode", std::string("reflect")}}));
  const ValueId c = Conv(b, "c", padded, 8, 8);  // [1, 8, 14, 14]
  const ValueId d = b.Op(OpType::kPad, "pad2",
                         {Conv(b, "d", x, 4, 3), b.ConstI64("p2", {8}, {0, 0, 1, 1, 0, 0, 1, 1})},
                         Attrs({{"mode", std::string("constant")}}));  // CPU, [1, 4, 14, 14]
  const ValueId cat = b.Op(OpType::kConcat, "cat", {c, d}, Attrs({{"axis", int64_t{1}}}));
  const ValueId e = Conv(b, "e", cat, 6, 12);
  const ValueId flat = b.Op(OpType::kReshape, "flat", {e, b.ConstI64("shape", {2}, {1, -1})});
  b.Output(b.Op(OpType::kSoftmax, "sm", {flat}, Attrs({{"axis", int64_t{1}}})));
  return b.Take();
}

TEST(OpenClSession, CpuFallbackAndAliasesAcrossDomains) {
  REQUIRE_DEVICE();
  const Graph g = MixedGraph();
  const auto inputs = RandomInputs(g);
  const auto want = RunGraph(g, inputs);
  CompileOptions copts;
  copts.target_backend = kExecutorOpenCL;
  copts.target_isa = kBestCpuIsa;
  auto compiled = CompileGraph(g, copts);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  ASSERT_FALSE(compiled->plan.memory.elided.empty()) << "the planner elided nothing";
  auto graph = std::make_shared<const Graph>(compiled->graph);
  auto plan = std::make_shared<const ExecutionPlan>(compiled->plan);
  for (GpuPrecision p : {GpuPrecision::kFp32, GpuPrecision::kFp16}) {
    GpuOptions gpu;
    gpu.precision = p;
    auto run = RunOnGpu(*graph, inputs, gpu, plan);
    ExpectClose(run.outputs, want, p == GpuPrecision::kFp32 ? 2e-5f : 2e-2f);
    int on_gpu = 0, on_cpu = 0;
    for (size_t n = 0; n < graph->num_nodes(); ++n) {
      const Node& node = graph->node(static_cast<NodeId>(n));
      if (node.op == OpType::kPad) {
        EXPECT_EQ(run.placement[n], "cpu") << node.name;
      }
      on_gpu += run.placement[n] == "opencl";
      on_cpu += run.placement[n] == "cpu";
    }
    EXPECT_EQ(on_cpu, 2);
    EXPECT_GE(on_gpu, 4);
  }
  // The copies are the placement boundaries only: input up, a down and up around pad, d down,
  // c's and d's slices up for e, the output down (softmax runs on the GPU).
  SessionOptions so;
  so.executors = {"opencl", "cpu"};
  auto s = Session::Create(graph, so, plan);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_LE((*s)->boundary_copies(), 7);
  EXPECT_GE((*s)->boundary_copies(), 5);
}

TEST(OpenClSession, StreamsWithEvents) {
  REQUIRE_DEVICE();
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 4, 10, 10});
  ValueId l = x, r = x;
  for (int i = 0; i < 3; ++i) {
    l = Conv(b, "l" + std::to_string(i), l, 4, 4);
    r = Conv(b, "r" + std::to_string(i), r, 4, 4);
  }
  b.Output(b.Op(OpType::kAdd, "sum", {l, r}));
  const Graph g = b.Take();
  const auto inputs = RandomInputs(g);
  const auto want = RunGraph(g, inputs);
  CompileOptions copts;
  copts.target_backend = kExecutorOpenCL;
  copts.streams = 2;
  auto compiled = CompileGraph(g, copts);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  ASSERT_EQ(compiled->plan.schedule.num_streams, 2);
  ASSERT_FALSE(compiled->plan.schedule.events.empty());
  auto plan = std::make_shared<const ExecutionPlan>(compiled->plan);
  for (int threads : {1, 2}) {  // streams interleaved on one thread, and concurrent
    auto run = RunOnGpu(compiled->graph, inputs, {}, plan, threads);
    testing::ExpectAllOnGpu(run);
    ExpectClose(run.outputs, want, 2e-5f);
  }
}

// A CPU value read by GPU nodes on two streams: its upload is made right after its producer,
// before the producer's events, so the reader on the other stream cannot see the device slot
// before the copy. (When the copy belonged to the first reader in graph order, which here
// comes after slow CPU work on stream 0, the stream-1 reader raced it and read stale bytes.)
TEST(OpenClSession, BoundaryCopyIsDoneBeforeReadersOnOtherStreams) {
  REQUIRE_DEVICE();
  GraphBuilder b;
  const ValueId x = b.Input("x", {1, 4, 16, 16});
  const ValueId y = b.Input("y", {1, 32, 160, 160});
  const ValueId a = Conv(b, "a", x, 4, 4);  // node 0
  const Attributes reflect = Attrs({{"mode", std::string("reflect")}});
  const ValueId pads = b.ConstI64("pads", {8}, {0, 0, 1, 1, 0, 0, 1, 1});
  const ValueId p = b.Op(OpType::kPad, "p", {a, pads}, reflect);           // 1, CPU
  const ValueId big = b.Op(OpType::kPad, "big", {y, pads}, reflect);       // 2, CPU
  const ValueId big2 = b.Op(OpType::kPad, "big2", {big, pads}, reflect);   // 3, CPU
  const ValueId big3 = b.Op(OpType::kPad, "big3", {big2, pads}, reflect);  // 4, CPU
  const ValueId r1 = Conv(b, "r1", p, 4, 4);                               // 5
  const ValueId r2 = Conv(b, "r2", p, 4, 4);                               // 6
  b.Output(b.Op(OpType::kAdd, "sum", {r1, r2}));                           // 7
  b.Output(big3);
  b.Output(r2);  // downloaded on stream 1 right after r2: r2 runs while stream 0 is busy
  const Graph g = b.Take();
  ASSERT_EQ(g.num_nodes(), 8u);
  auto plan = std::make_shared<ExecutionPlan>(ExecutionPlan::Default(g));
  plan->schedule.num_streams = 2;
  plan->schedule.stream = {0, 0, 0, 0, 0, 0, 1, 0};
  plan->schedule.events = {{1, 6}, {6, 7}};
  ASSERT_TRUE(ValidateExecutionPlan(g, *plan).ok());
  SessionOptions so;
  so.executors = {"opencl", "cpu"};
  so.num_threads = 2;
  auto s = Session::Create(std::make_shared<const Graph>(g), so, plan);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE((*s)->memory().concurrent);
  const auto placement = (*s)->Placement();
  EXPECT_EQ(placement[1], "cpu");
  EXPECT_EQ(placement[6], "opencl");
  for (uint32_t seed = 1; seed <= 4; ++seed) {  // new inputs each run: stale bytes show
    const auto inputs = RandomInputs(g, seed);
    auto out = (*s)->Run(inputs);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ExpectClose(*out, RunGraph(g, inputs), 2e-5f);
  }
}

TEST(OpenClSession, ProfileFromEventTimestamps) {
  REQUIRE_DEVICE();
  const Graph g = MixedGraph();
  SessionOptions so;
  so.executors = {"opencl", "cpu"};
  so.profile = true;
  auto s = Session::Create(std::make_shared<const Graph>(g), so);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  const auto inputs = RandomInputs(g);
  ASSERT_TRUE((*s)->Run(inputs).ok());
  ASSERT_TRUE((*s)->Run(inputs).ok());
  int gpu_rows = 0;
  for (const NodeProfile& p : (*s)->profile()) {
    EXPECT_EQ(p.runs, 2) << p.node;
    EXPECT_GT(p.total_ms, 0.0) << p.node;
    gpu_rows += p.executor == "opencl";
  }
  EXPECT_GE(gpu_rows, 4);
}

TEST(OpenClSession, MissingDeviceFallsBackToCpuWithAWarning) {
  const Graph g = MixedGraph();
  const auto inputs = RandomInputs(g);
  GpuOptions gpu;
  gpu.platform = "no-such-opencl-platform";
  auto run = RunOnGpu(g, inputs, gpu);
  ASSERT_EQ(run.warnings.size(), 1u);
  EXPECT_NE(run.warnings[0].find("no OpenCL"), std::string::npos) << run.warnings[0];
  for (const auto& p : run.placement) EXPECT_TRUE(p == "cpu" || p == "-");
  ExpectClose(run.outputs, RunGraph(g, inputs), 0.f);
  // An unknown executor name is an error, not a warning.
  SessionOptions so;
  so.executors = {"tpu"};
  EXPECT_FALSE(Session::Create(std::make_shared<const Graph>(g), so).ok());
}

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string ProgramOrigin(const Graph& g, const GpuOptions& gpu) {
  SessionOptions so;
  so.executors = {"opencl", "cpu"};
  so.backend_options.Mutable<GpuOptions>() = gpu;
  auto s = Session::Create(std::make_shared<const Graph>(g), so);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  if (!s.ok()) return "";
  const Executor* ex = (*s)->executor("opencl");
  EXPECT_NE(ex, nullptr);
  const OpenClExecutorInfo* info = ex ? GetOpenClExecutorInfo(*ex) : nullptr;
  return info ? info->program_origin : "";
}

TEST(OpenClSession, ProgramCacheHitsAndStaleEntries) {
  REQUIRE_DEVICE();
  const fs::path dir = fs::temp_directory_path() / ("kiln-cl-cache-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const Graph g = MixedGraph();
  GpuOptions gpu;
  gpu.cache_dir = dir.string();
  EXPECT_EQ(ProgramOrigin(g, gpu), "jit");
  fs::path file;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() == ".bin") file = e.path();
  }
  ASSERT_FALSE(file.empty()) << "no program cache file in " << dir;
  EXPECT_EQ(ProgramOrigin(g, gpu), "cache");
  // A cache made from another kernel source is stale: rebuilt (and the file replaced).
  std::string text = ReadFile(file);
  const size_t at = text.find("hash=");
  ASSERT_NE(at, std::string::npos);
  text[at + 5] = text[at + 5] == '0' ? '1' : '0';
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
  EXPECT_EQ(ProgramOrigin(g, gpu), "jit");
  EXPECT_EQ(ProgramOrigin(g, gpu), "cache");
  // Garbage in the cache costs a rebuild, never a failure.
  std::ofstream(file, std::ios::binary | std::ios::trunc) << "KILNCLB1\nsize=12\n\ngarbage";
  EXPECT_EQ(ProgramOrigin(g, gpu), "jit");
  fs::remove_all(dir);
}

TEST(OpenClSession, BinariesEmbeddedInASignedModel) {
  REQUIRE_DEVICE();
  const Graph g = MixedGraph();
  CompileOptions copts;
  copts.target_backend = kExecutorOpenCL;
  auto compiled = CompileGraph(g, copts);
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  GpuOptions build;
  build.tune = 0;
  auto binaries = BuildKernelBinaries(compiled->graph, build, {GpuPrecision::kFp32});
  ASSERT_TRUE(binaries.ok()) << binaries.status().ToString();
  ASSERT_EQ(binaries->programs.size(), 1u);
  WriteOptions wo;
  wo.plan = &compiled->plan;
  wo.kernel_binaries = &*binaries;
  auto image = SerializeModel(compiled->graph, wo);
  ASSERT_TRUE(image.ok()) << image.status().ToString();
  TrustStore trust;
  LoadOptions lo;
  lo.allow_unsigned = true;
  auto model = Model::LoadFromMemory(nullptr, image->data(), image->size(), trust, lo);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  ASSERT_NE((*model)->kernel_binaries(), nullptr);
  EXPECT_EQ((*model)->info().gpu_binaries_device, binaries->device);

  SessionOptions so;
  so.executors = {"opencl", "cpu"};
  so.backend_options.Mutable<GpuOptions>().cache_dir = "-";  // no disk cache: the program can only come from the file
  auto s = Session::Create(**model, so);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(GetOpenClExecutorInfo(*(*s)->executor("opencl"))->program_origin, "embedded");
  const auto inputs = RandomInputs(g);
  auto out = (*s)->Run(inputs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ExpectClose(*out, RunGraph(g, inputs), 2e-5f);

  // Binaries of another kernel source are not used: the runtime compiles instead.
  KernelBinaries other = *binaries;
  other.programs[0].source_hash = std::string(64, '0');
  so.backend_options.Mutable<GpuOptions>().binaries = std::make_shared<const KernelBinaries>(other);
  auto s2 = Session::Create(**model, so);
  ASSERT_TRUE(s2.ok()) << s2.status().ToString();
  EXPECT_EQ(GetOpenClExecutorInfo(*(*s2)->executor("opencl"))->program_origin, "jit");
}

}  // namespace
}  // namespace kiln
