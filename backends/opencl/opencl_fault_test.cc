// Accelerator faults on the OpenCL executor (docs/faults.md): an injected failure at every
// OpenCL entry point Kiln calls (backends/opencl/cl_fault.h), at session creation and while
// running, on PoCL with real models (mnist; squeezenet on two threads, whose streams add the
// cross-stream markers and barriers). With SessionOptions::on_accelerator_failure = kFail the
// session returns an error naming the entry point and the OpenCL error; with kFallBackToCpu
// (the default) the GPU is left out, the outputs are bit-identical to a CPU-only session's,
// and the session keeps running. Plus a request beyond the device's limits (a buffer larger
// than CL_DEVICE_MAX_MEM_ALLOC_SIZE). ctest -L opencl.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <map>

#include "backends/opencl/cl_fault.h"
#include "backends/opencl/gpu_options.h"
#include "backends/opencl/opencl_device.h"
#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "parsers/onnx/onnx_parser.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/session.h"
#include "tests/graph_builder.h"
#include "tests/opencl/opencl_test_util.h"
#include "tests/test_support.h"

namespace kiln {
namespace {

namespace fs = std::filesystem;
using opencl::ClEntry;
using opencl::ClEntryName;
using opencl::ClFault;

#define REQUIRE_DEVICE() \
  if (!testing::HaveOpenClDevice()) GTEST_SKIP() << "no OpenCL device (install pocl-opencl-icd)"

// Disarms whatever a test armed, however it ends.
struct ArmedFault {
  explicit ArmedFault(const ClFault& f) { opencl::ArmClFault(f); }
  ~ArmedFault() { opencl::DisarmClFault(); }
  ArmedFault(const ArmedFault&) = delete;
  ArmedFault& operator=(const ArmedFault&) = delete;
};

// A shared model compiled for the GPU, its first test inputs, and a CPU-only session's outputs
// on them (the same graph, plan and thread count: what a fallback must reproduce exactly).
struct Model {
  std::shared_ptr<const Graph> graph;
  std::shared_ptr<const ExecutionPlan> plan;
  std::vector<HostTensor> inputs;
  std::vector<HostTensor> cpu;
  int threads = 1;
};

std::vector<HostTensor> ReadSet(const fs::path& dir, const std::string& prefix) {
  auto tensors = ReadTensorProtoSet(dir.string(), prefix);
  EXPECT_TRUE(tensors.ok()) << tensors.status().ToString();
  return tensors.ok() ? std::move(tensors).value() : std::vector<HostTensor>{};
}

SessionOptions Options(const Model& m, AcceleratorFailure mode, const GpuOptions& gpu = {}) {
  SessionOptions o;
  o.executors = {"opencl", "cpu"};
  o.num_threads = m.threads;
  o.on_accelerator_failure = mode;
  o.backend_options.Mutable<GpuOptions>() = gpu;
  return o;
}

const Model& LoadModel(const std::string& name, int threads) {
  static std::map<std::pair<std::string, int>, Model> cache;
  auto [it, fresh] = cache.try_emplace({name, threads});
  Model& m = it->second;
  if (!fresh) return m;
  m.threads = threads;
  const fs::path dir = fs::path(testing::SharedDir()) / "models" / name;
  auto names = ReadOnnxInputNames((dir / "model.onnx").string());
  EXPECT_TRUE(names.ok()) << names.status().ToString();
  m.inputs = ReadSet(dir / "test_data_set_0", "input_");
  OnnxParseOptions parse;
  for (size_t i = 0; i < m.inputs.size() && names.ok(); ++i) {
    m.inputs[i].name = (*names)[i];
    parse.input_shapes[m.inputs[i].name] = m.inputs[i].shape;
  }
  auto graph = ImportOnnx((dir / "model.onnx").string(), parse);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  if (!graph.ok()) return m;
  CompileOptions copts;
  copts.target_backend = kExecutorOpenCL;
  copts.target_isa = kBestCpuIsa;
  copts.streams = threads;  // two streams on two threads: cross-stream events on the GPU
  auto compiled = CompileGraph(std::move(graph).value(), copts);
  EXPECT_TRUE(compiled.ok()) << compiled.status().ToString();
  if (!compiled.ok()) return m;
  m.graph = std::make_shared<const Graph>(std::move(compiled->graph));
  m.plan = std::make_shared<const ExecutionPlan>(std::move(compiled->plan));
  SessionOptions cpu_only;
  cpu_only.num_threads = threads;
  auto cpu = Session::Create(m.graph, cpu_only, m.plan);
  EXPECT_TRUE(cpu.ok()) << cpu.status().ToString();
  if (!cpu.ok()) return m;
  auto outs = (*cpu)->Run(m.inputs);
  EXPECT_TRUE(outs.ok()) << outs.status().ToString();
  if (outs.ok()) m.cpu = std::move(outs).value();
  // A first GPU session fills the program cache that the binary-path cases read.
  auto gpu = Session::Create(m.graph, Options(m, AcceleratorFailure::kFail), m.plan);
  EXPECT_TRUE(gpu.ok()) << gpu.status().ToString();
  return m;
}

void ExpectSameAsCpu(const Model& m, const std::vector<HostTensor>& outs) {
  ASSERT_EQ(outs.size(), m.cpu.size());
  for (size_t i = 0; i < outs.size(); ++i) {
    EXPECT_EQ(outs[i].bytes, m.cpu[i].bytes) << "output " << i << " differs from the CPU's";
  }
}

bool AllOnCpu(const Session& s) {
  for (const std::string& p : s.Placement()) {
    if (p != "cpu" && p != "-") return false;
  }
  return true;
}

bool AnyOnGpu(const Session& s) {
  for (const std::string& p : s.Placement()) {
    if (p == kExecutorOpenCL) return true;
  }
  return false;
}

std::string Joined(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += s + "\n";
  return out;
}

// A fresh, empty program cache folder (a JIT build that is then cached).
std::string FreshCacheDir(const std::string& tag) {
  const fs::path dir =
      fs::temp_directory_path() / ("kiln-fault-" + tag + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

enum class Phase { kSetup, kRun };

struct FaultCase {
  ClEntry entry;
  Phase phase;
  cl_int error;
  std::string model = "mnist";
  int threads = 1;
  // What the GPU options need for the entry to be reached: the program cache off (JIT), an
  // empty one (JIT, then cached), the tuner on (PoCL tunes only when asked).
  enum Cache { kWarm, kOff, kEmpty } cache = kWarm;
  bool tune = false;
  // The executor recovers by itself (a cached binary that does not load is rebuilt from
  // source; a program that cannot be read back is not cached): no error in either mode.
  bool recovers = false;
};

std::string CaseName(const FaultCase& c) {
  std::string name = ClEntryName(c.entry);
  name += c.phase == Phase::kSetup ? "_AtSetup" : "_WhileRunning";
  return name;
}

void PrintTo(const FaultCase& c, std::ostream* os) { *os << CaseName(c); }

std::vector<FaultCase> Cases() {
  using E = ClEntry;
  const Phase S = Phase::kSetup, R = Phase::kRun;
  std::vector<FaultCase> c = {
      {E::kGetPlatformIDs, S, CL_OUT_OF_HOST_MEMORY},
      {E::kGetDeviceIDs, S, CL_OUT_OF_HOST_MEMORY},
      {E::kCreateContext, S, CL_OUT_OF_HOST_MEMORY},
      {E::kCreateCommandQueue, S, CL_OUT_OF_RESOURCES},
      {E::kCreateBuffer, S, CL_MEM_OBJECT_ALLOCATION_FAILURE},
      {E::kCreateProgramWithSource, S, CL_OUT_OF_HOST_MEMORY},
      {E::kCreateProgramWithBinary, S, CL_INVALID_BINARY},
      {E::kBuildProgram, S, CL_BUILD_PROGRAM_FAILURE},
      {E::kGetProgramInfo, S, CL_OUT_OF_HOST_MEMORY},
      {E::kCreateKernel, S, CL_OUT_OF_RESOURCES},
      {E::kSetKernelArg, S, CL_OUT_OF_RESOURCES},
      {E::kEnqueueNDRangeKernel, S, CL_OUT_OF_RESOURCES},
      {E::kEnqueueWriteBuffer, S, CL_OUT_OF_RESOURCES},
      {E::kEnqueueFillBuffer, S, CL_OUT_OF_RESOURCES},
      {E::kWaitForEvents, S, CL_OUT_OF_RESOURCES},
      {E::kSetKernelArg, R, CL_INVALID_MEM_OBJECT},
      {E::kEnqueueNDRangeKernel, R, CL_OUT_OF_RESOURCES},
      {E::kEnqueueWriteBuffer, R, CL_OUT_OF_RESOURCES},
      {E::kEnqueueReadBuffer, R, CL_OUT_OF_RESOURCES},
      {E::kEnqueueCopyBuffer, R, CL_OUT_OF_RESOURCES},
      {E::kEnqueueMarkerWithWaitList, R, CL_OUT_OF_RESOURCES},
      {E::kEnqueueBarrierWithWaitList, R, CL_OUT_OF_RESOURCES},
      {E::kFinish, R, CL_OUT_OF_RESOURCES},
  };
  for (FaultCase& f : c) {
    switch (f.entry) {
      case E::kCreateProgramWithSource:
        f.cache = FaultCase::kOff;
        break;
      case E::kCreateProgramWithBinary:
        f.recovers = true;
        break;
      case E::kGetProgramInfo:
        f.cache = FaultCase::kEmpty;
        f.recovers = true;
        break;
      case E::kSetKernelArg:
      case E::kEnqueueNDRangeKernel:
      case E::kEnqueueFillBuffer:
      case E::kWaitForEvents:
        // At setup only the tuner sets arguments and launches: its timing runs.
        if (f.phase == S) {
          f.tune = true;
          f.cache = FaultCase::kEmpty;
        }
        break;
      case E::kEnqueueCopyBuffer:
      case E::kEnqueueMarkerWithWaitList:
      case E::kEnqueueBarrierWithWaitList:
        // squeezenet's Concats copy on the GPU; its plan has streams, which two threads run
        // concurrently, ordered by markers and barriers.
        f.model = "squeezenet";
        f.threads = 2;
        break;
      default:
        break;
    }
  }
  return c;
}

class OpenClFault : public ::testing::TestWithParam<FaultCase> {
 protected:
  GpuOptions Gpu(const FaultCase& c) const {
    GpuOptions gpu;
    if (c.cache == FaultCase::kOff) gpu.cache_dir = "-";
    if (c.cache == FaultCase::kEmpty) gpu.cache_dir = FreshCacheDir(CaseName(c));
    if (c.tune) gpu.tune = 1;
    return gpu;
  }
  ClFault Fault(const FaultCase& c) const {
    ClFault f;
    f.entry = c.entry;
    f.nth = 1;
    f.times = -1;  // every call from the first on: the device stays broken
    f.error = c.error;
    return f;
  }
};

// The error names the entry point and the OpenCL error.
void ExpectNames(const std::string& message, const FaultCase& c) {
  EXPECT_NE(message.find(ClEntryName(c.entry)), std::string::npos) << message;
  EXPECT_NE(message.find(opencl::ClErrorName(c.error)), std::string::npos) << message;
}

TEST_P(OpenClFault, FailModeReturnsAClearError) {
  REQUIRE_DEVICE();
  const FaultCase& c = GetParam();
  const Model& m = LoadModel(c.model, c.threads);
  ASSERT_TRUE(m.graph && !m.cpu.empty());
  const SessionOptions options = Options(m, AcceleratorFailure::kFail, Gpu(c));
  if (c.phase == Phase::kSetup) {
    Expected<std::unique_ptr<Session>> s = Internal("not created");
    int64_t injected = 0;
    {
      ArmedFault armed(Fault(c));
      s = Session::Create(m.graph, options, m.plan);
      injected = opencl::ClFaultsInjected();
    }
    ASSERT_GT(injected, 0) << ClEntryName(c.entry) << " was never called at setup";
    if (c.recovers) {
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      EXPECT_TRUE(AnyOnGpu(**s));
      auto outs = (*s)->Run(m.inputs);
      ASSERT_TRUE(outs.ok()) << outs.status().ToString();
      testing::ExpectClose(*outs, m.cpu, 1e-4f);
      std::printf("fault %s: recovered, session on the GPU\n", CaseName(c).c_str());
      return;
    }
    ASSERT_FALSE(s.ok());
    ExpectNames(s.status().message(), c);
    std::printf("fault %s (fail): %s\n", CaseName(c).c_str(), s.status().ToString().c_str());
    return;
  }
  auto s = Session::Create(m.graph, options, m.plan);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(AnyOnGpu(**s));
  Expected<std::vector<HostTensor>> outs = std::vector<HostTensor>{};
  int64_t injected = 0;
  {
    ArmedFault armed(Fault(c));
    outs = (*s)->Run(m.inputs);
    injected = opencl::ClFaultsInjected();
  }
  ASSERT_GT(injected, 0) << ClEntryName(c.entry) << " was never called while running";
  ASSERT_FALSE(outs.ok());
  ExpectNames(outs.status().message(), c);
  std::printf("fault %s (fail): %s\n", CaseName(c).c_str(), outs.status().ToString().c_str());
}

TEST_P(OpenClFault, FallbackModeMatchesTheCpu) {
  REQUIRE_DEVICE();
  const FaultCase& c = GetParam();
  const Model& m = LoadModel(c.model, c.threads);
  ASSERT_TRUE(m.graph && !m.cpu.empty());
  const SessionOptions options = Options(m, AcceleratorFailure::kFallBackToCpu, Gpu(c));
  std::unique_ptr<Session> session;
  Expected<std::vector<HostTensor>> outs = std::vector<HostTensor>{};
  int64_t injected = 0;
  if (c.phase == Phase::kSetup) {
    ArmedFault armed(Fault(c));
    auto s = Session::Create(m.graph, options, m.plan);
    injected = opencl::ClFaultsInjected();
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    session = std::move(s).value();
    outs = session->Run(m.inputs);
  } else {
    auto s = Session::Create(m.graph, options, m.plan);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    session = std::move(s).value();
    ASSERT_TRUE(AnyOnGpu(*session));
    ArmedFault armed(Fault(c));
    outs = session->Run(m.inputs);
    injected = opencl::ClFaultsInjected();
  }
  ASSERT_GT(injected, 0) << ClEntryName(c.entry) << " was never called";
  ASSERT_TRUE(outs.ok()) << outs.status().ToString();
  if (c.recovers) {
    EXPECT_TRUE(AnyOnGpu(*session));
    testing::ExpectClose(*outs, m.cpu, 1e-4f);
  } else {
    EXPECT_TRUE(AllOnCpu(*session)) << Joined(session->Placement());
    ExpectSameAsCpu(m, *outs);
    const std::string warnings = Joined(session->warnings());
    ExpectNames(warnings, c);
    EXPECT_NE(warnings.find(c.phase == Phase::kSetup ? "failed at session creation"
                                                     : "failed while running"),
              std::string::npos)
        << warnings;
    std::printf("fault %s (cpu): fell back, outputs equal to the CPU's; warning: %s",
                CaseName(c).c_str(), warnings.c_str());
  }
  // The session goes on: the next runs, the device healthy again or not, give the same.
  for (int i = 0; i < 2; ++i) {
    auto again = session->Run(m.inputs);
    ASSERT_TRUE(again.ok()) << again.status().ToString();
    if (c.recovers) {
      testing::ExpectClose(*again, m.cpu, 1e-4f);
    } else {
      ExpectSameAsCpu(m, *again);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(EntryPoints, OpenClFault, ::testing::ValuesIn(Cases()),
                         [](const auto& info) { return CaseName(info.param); });

// A failure in the middle of a run, once: the kernels already queued are dropped with the
// GPU's queues, and the repeated run on the CPU gives the CPU's outputs.
TEST(OpenClFaultOnce, MidRunFailureFallsBack) {
  REQUIRE_DEVICE();
  const Model& m = LoadModel("squeezenet", 2);
  ASSERT_TRUE(m.graph && !m.cpu.empty());
  auto s = Session::Create(m.graph, Options(m, AcceleratorFailure::kFallBackToCpu), m.plan);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  auto first = (*s)->Run(m.inputs);  // a healthy run on the GPU first
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  testing::ExpectClose(*first, m.cpu, 1e-4f);
  ClFault f;
  f.entry = ClEntry::kEnqueueNDRangeKernel;
  f.nth = 10;
  f.times = 1;
  f.error = CL_OUT_OF_RESOURCES;
  Expected<std::vector<HostTensor>> outs = std::vector<HostTensor>{};
  {
    ArmedFault armed(f);
    outs = (*s)->Run(m.inputs);
    EXPECT_EQ(opencl::ClFaultsInjected(), 1);
  }
  ASSERT_TRUE(outs.ok()) << outs.status().ToString();
  ExpectSameAsCpu(m, *outs);
  EXPECT_TRUE(AllOnCpu(**s));
}

// A request beyond what the device allows: a tensor larger than CL_DEVICE_MAX_MEM_ALLOC_SIZE
// (PoCL: a quarter of its global memory). Only sessions are made (no run touches the memory).
TEST(OpenClFaultLimits, BufferAboveMaxAllocSize) {
  REQUIRE_DEVICE();
  auto dev = opencl::SelectDevice("", 0);
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  cl_ulong max_alloc = 0;
  ASSERT_EQ(clGetDeviceInfo(dev->device, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof(max_alloc),
                            &max_alloc, nullptr),
            CL_SUCCESS);
  const int64_t elems = static_cast<int64_t>(max_alloc / 4 + 1024);
  testing::GraphBuilder b;
  const ValueId x = b.Input("x", {1, elems});
  b.Output(b.Op(OpType::kRelu, "relu", {x}));
  auto graph = std::make_shared<const Graph>(b.Take());
  SessionOptions o;
  o.executors = {"opencl", "cpu"};
  o.on_accelerator_failure = AcceleratorFailure::kFail;
  auto failed = Session::Create(graph, o);
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().message().find("clCreateBuffer"), std::string::npos)
      << failed.status().ToString();
  std::printf("limits (fail): %s\n", failed.status().ToString().c_str());
  o.on_accelerator_failure = AcceleratorFailure::kFallBackToCpu;
  auto moved = Session::Create(graph, o);
  ASSERT_TRUE(moved.ok()) << moved.status().ToString();
  EXPECT_TRUE(AllOnCpu(**moved));
  ASSERT_FALSE((*moved)->warnings().empty());
  EXPECT_NE((*moved)->warnings().back().find("clCreateBuffer"), std::string::npos);
  std::printf("limits (cpu): %s\n", (*moved)->warnings().back().c_str());
}

}  // namespace
}  // namespace kiln
