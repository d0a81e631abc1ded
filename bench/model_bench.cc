// Times a shared-layout model (DIR/model.onnx + DIR/test_data_set_0/input_0.pb) in a Kiln
// session and checks its output against output_0.pb; with --profile, prints time per op type.
// A development yardstick for the CPU kernels until `kiln bench` lands.
//
//   kiln_model_bench DIR [--threads 1] [--isa auto] [--runs 30] [--warmup 10] [--profile]
//                        [--cpu-time] [--no-compile]
//
// By default the model is compiled as `kiln run` does for ONNX sources (fusion, weights
// packed for the chosen flavour, memory plan); --no-compile runs the imported graph as is
// (plain ops on their own kernels).
//
// --cpu-time (1 thread only) times runs with the calling thread's CPU clock, which keeps
// figures usable on a machine shared with other work.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "kernels/cpu_features.h"
#include "parsers/onnx/onnx_parser.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/session.h"

namespace kiln::bench {
namespace {

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

double WallMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

int Fail(const Status& s) {
  std::fprintf(stderr, "error: %s\n", s.ToString().c_str());
  return 1;
}

int Main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: kiln_model_bench DIR [--threads N] [--isa ISA] [--runs R] "
                 "[--warmup W] [--profile]\n");
    return 2;
  }
  const std::string dir = argv[1];
  int threads = 1, runs = 30, warmup = 10;
  std::string isa_name = "auto";
  bool profile = false, cpu_time = false, compile = true;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "0";
    if (a == "--threads")
      threads = std::atoi(v), ++i;
    else if (a == "--runs")
      runs = std::max(1, std::atoi(v)), ++i;
    else if (a == "--warmup")
      warmup = std::atoi(v), ++i;
    else if (a == "--isa")
      isa_name = v, ++i;
    else if (a == "--profile")
      profile = true;
    else if (a == "--cpu-time")
      cpu_time = true;
    else if (a == "--no-compile")
      compile = false;
    else
      return Fail(InvalidArgument("unknown flag " + a));
  }
  auto isa = cpu::ParseCpuIsa(isa_name);
  if (!isa.ok()) return Fail(isa.status());
  auto input = ReadTensorProtoFile(dir + "/test_data_set_0/input_0.pb");
  if (!input.ok()) return Fail(input.status());
  OnnxParseOptions parse;
  // Bind the test input to the model's first input by position (its name may differ, as in
  // super_resolution) and fix its symbolic dims from the tensor.
  auto declared = ReadOnnxDeclaredInputs(dir + "/model.onnx");
  if (!declared.ok()) return Fail(declared.status());
  if (declared->empty()) return Fail(InvalidArgument("model has no inputs"));
  input->name = declared->front().name;
  parse.input_shapes[input->name] = input->shape;
  parse.frozen_inputs = {*input};
  auto graph = ImportOnnx(dir + "/model.onnx", parse);  // parse + shape inference + folding
  if (!graph.ok()) return Fail(graph.status());
  std::shared_ptr<const Graph> shared;
  std::shared_ptr<const ExecutionPlan> plan;
  if (compile) {
    CompileOptions copts;
    copts.target_isa = cpu::ClampToCpu(*isa);
    auto compiled = CompileGraph(std::move(*graph), copts);
    if (!compiled.ok()) return Fail(compiled.status());
    shared = std::make_shared<const Graph>(std::move(compiled->graph));
    plan = std::make_shared<const ExecutionPlan>(std::move(compiled->plan));
  } else {
    shared = std::make_shared<const Graph>(std::move(*graph));
  }
  SessionOptions options;
  options.cpu_max_isa = *isa;
  options.num_threads = threads;
  options.profile = profile;
  const auto c0 = std::chrono::steady_clock::now();
  auto session = Session::Create(shared, options, plan);
  const double create_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - c0).count();
  if (!session.ok()) return Fail(session.status());
  Status st = (*session)->SetInput(0, *input);
  if (!st.ok()) return Fail(st);
  for (int i = 0; i < warmup; ++i) {
    if (Status s = (*session)->Run(); !s.ok()) return Fail(s);
  }
  if (cpu_time && threads != 1) return Fail(InvalidArgument("--cpu-time needs --threads 1"));
  std::vector<double> ms;
  for (int i = 0; i < runs; ++i) {
    const double t0 = cpu_time ? ThreadCpuMs() : WallMs();
    if (Status s = (*session)->Run(); !s.ok()) return Fail(s);
    ms.push_back((cpu_time ? ThreadCpuMs() : WallMs()) - t0);
  }
  std::sort(ms.begin(), ms.end());
  // Output check against the shared reference output.
  double max_diff = -1;
  if (auto want = ReadTensorProtoFile(dir + "/test_data_set_0/output_0.pb"); want.ok()) {
    auto got = (*session)->GetOutput(0);
    if (got.ok() && got->dtype == DType::kF32 && got->bytes.size() == want->bytes.size()) {
      max_diff = 0;
      const float* g = got->data<float>();
      const float* w = want->data<float>();
      for (int64_t i = 0; i < got->num_elements(); ++i) {
        max_diff = std::max(max_diff, static_cast<double>(std::fabs(g[i] - w[i])));
      }
    }
  }
  std::printf(
      "%s: isa %s threads %d: median %.3f ms, min %.3f ms (%d runs); session %.1f ms; "
      "max |out - ref| %.3g\n",
      dir.c_str(), std::string(cpu::IsaName(cpu::ClampToCpu(*isa))).c_str(), threads,
      ms[ms.size() / 2], ms.front(), runs, create_ms, max_diff);
  if (profile) {
    std::map<std::string, std::pair<double, int>> by_type;
    double total = 0;
    for (const NodeProfile& p : (*session)->profile()) {
      const double per_run = p.runs ? p.total_ms / static_cast<double>(p.runs) : 0.0;
      auto& e = by_type[std::string(OpTypeName(p.op))];
      e.first += per_run;
      e.second += 1;
      total += per_run;
    }
    std::vector<std::pair<double, std::string>> rows;
    for (const auto& [name, e] : by_type) rows.push_back({e.first, name});
    std::sort(rows.rbegin(), rows.rend());
    for (const auto& [t, name] : rows) {
      std::printf("  %-20s %4d nodes %8.3f ms %5.1f%%\n", name.c_str(), by_type[name].second, t,
                  100.0 * t / total);
    }
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::Main(argc, argv); }
