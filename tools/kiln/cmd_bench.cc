// kiln bench MODEL [--device D] [--threads N] [--runs R] [--warmup W] [--profile] [--json]
// [--isa ISA]: load (verify, or import + compile for ONNX) time, session creation time, first
// run, latency min/median/mean/max over R timed runs after W warm-ups on seeded random inputs,
// peak RSS, and with --profile the per-op tables of profile_report.h from a second, profiled
// session (GPU ops timed by OpenCL event timestamps, CPU ops by the host clock).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "runtime/placement.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/model_source.h"
#include "tools/kiln/dsp_report.h"
#include "tools/kiln/profile_report.h"
#include "tools/kiln/session_setup.h"
#ifdef KILN_WITH_OPENCL
#include "backends/opencl/opencl_executor.h"
#endif

namespace kiln::cli {
namespace {

struct BenchArgs {
  std::string model;
  int threads = 1;
  int runs = 20;
  int warmup = 5;
  bool profile = false;
  bool json = false;
  std::string isa = "auto";
  DeviceArgs device;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Peak resident set of this process so far (VmHWM), in KiB; -1 when unavailable.
int64_t PeakRssKb() {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6));
  }
  return -1;
}

// Seeded inputs: uniform [-1, 1) for floats, zeros otherwise (valid indices and ids).
std::vector<HostTensor> MakeInputs(const Session& s) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::vector<HostTensor> inputs;
  for (size_t i = 0; i < s.num_inputs(); ++i) {
    const Value& v = s.input_info(i);
    HostTensor t(v.name, v.dtype, v.shape);
    if (v.dtype == DType::kF32) {
      for (int64_t k = 0; k < t.num_elements(); ++k) t.data<float>()[k] = dist(rng);
    }
    inputs.push_back(std::move(t));
  }
  return inputs;
}

struct Latency {
  double min = 0, median = 0, mean = 0, max = 0;
};

Latency Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  Latency l;
  l.min = ms.front();
  l.max = ms.back();
  l.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  const size_t n = ms.size();
  l.median = n % 2 ? ms[n / 2] : (ms[n / 2 - 1] + ms[n / 2]) / 2;
  return l;
}

std::string PlacementLine(const Session& s) { return PlacementSummary(s.Placement()); }

// The GPU executor's device, precision and where its program came from; empty without one.
std::string GpuLine(const Session& s) {
#ifdef KILN_WITH_OPENCL
  if (const Executor* ex = s.executor(kExecutorOpenCL)) {
    if (const OpenClExecutorInfo* info = GetOpenClExecutorInfo(*ex)) {
      char buf[512];
      std::snprintf(buf, sizeof(buf), "%s, %s, program from %s (%.1f ms)", info->device.c_str(),
                    info->precision.c_str(), info->program_origin.c_str(), info->program_ms);
      return buf;
    }
  }
#endif
  (void)s;
  return "";
}

Status SetInputs(Session& session) {
  for (const HostTensor& t : MakeInputs(session)) {
    KILN_ASSIGN_OR_RETURN(size_t index, session.InputIndex(t.name));
    KILN_RETURN_IF_ERROR(session.SetInput(index, t));
  }
  return Status::Ok();
}

// Per-node profile over `runs` runs of a profiled session, after `warmup` untimed ones.
// `dsp_text` / `dsp_json`: the DSP counters of the profiled session (empty without the DSP).
Expected<std::vector<NodeProfile>> Profile(const LoadedModel& loaded, Isa isa,
                                           const BenchArgs& args, std::string* dsp_text,
                                           std::string* dsp_json) {
  KILN_ASSIGN_OR_RETURN(auto prof, CreateSession(loaded, isa, args.threads, args.device, true));
  KILN_RETURN_IF_ERROR(SetInputs(*prof));
  for (int i = 0; i < args.warmup; ++i) KILN_RETURN_IF_ERROR(RunSession(*prof).WithContext("run"));
  const std::vector<NodeProfile> before = prof->profile();
  for (int i = 0; i < args.runs; ++i) KILN_RETURN_IF_ERROR(RunSession(*prof).WithContext("run"));
  std::vector<NodeProfile> timed = prof->profile();
  for (size_t i = 0; i < timed.size() && i < before.size(); ++i) {
    timed[i].total_ms -= before[i].total_ms;
    timed[i].runs -= before[i].runs;
  }
  *dsp_text = FormatDspProfileText(*prof, timed);
  if (!dsp_text->empty()) *dsp_json = FormatDspProfileJson(*prof);
  return timed;
}

Status Bench(BenchArgs& args) {
  KILN_RETURN_IF_ERROR(ParseInputShapes(args.raw_shapes, &args.source));
  KILN_ASSIGN_OR_RETURN(Isa isa, ParseIsa(args.isa));
  KILN_RETURN_IF_ERROR(args.device.ApplyTo(isa, &args.source.compile));
  if (args.runs < 1 || args.warmup < 0) {
    return InvalidArgument("--runs must be at least 1 and --warmup at least 0");
  }
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(args.model, args.source));
  const double load_ms = MsSince(t0);
  t0 = std::chrono::steady_clock::now();
  auto created = CreateSession(loaded, isa, args.threads, args.device);
  if (!created.ok()) return created.status().WithContext(args.model);
  const double session_ms = MsSince(t0);
  Session& session = **created;
  KILN_RETURN_IF_ERROR(SetInputs(session));
  t0 = std::chrono::steady_clock::now();
  KILN_RETURN_IF_ERROR(RunSession(session).WithContext("run"));
  const double first_ms = MsSince(t0);
  for (int i = 0; i < args.warmup; ++i)
    KILN_RETURN_IF_ERROR(RunSession(session).WithContext("run"));
  std::vector<double> ms;
  for (int i = 0; i < args.runs; ++i) {
    t0 = std::chrono::steady_clock::now();
    KILN_RETURN_IF_ERROR(RunSession(session).WithContext("run"));
    ms.push_back(MsSince(t0));
  }
  const Latency lat = Summarize(ms);
  const int64_t rss = PeakRssKb();
  const std::string gpu = GpuLine(session);
  // The latency above is of an unprofiled session: profiling (timestamps on every GPU command)
  // would slow it.
  ProfileReport report;
  std::string dsp_text, dsp_json;
  if (args.profile) {
    KILN_ASSIGN_OR_RETURN(std::vector<NodeProfile> timed,
                          Profile(loaded, isa, args, &dsp_text, &dsp_json));
    report = BuildProfileReport(session.graph(), timed);
  }
  if (args.json) {
    std::ostringstream os;
    os << "{\"model\": " << JsonString(args.model)
       << ", \"device\": " << JsonString(args.device.device);
    if (!gpu.empty()) os << ", \"gpu\": " << JsonString(gpu);
    os << ", \"threads\": " << args.threads << ", \"runs\": " << args.runs
       << ", \"warmup\": " << args.warmup << ", \"streams\": " << session.memory().streams
       << ", \"load_ms\": " << JsonNumber(load_ms) << ", \"session_ms\": " << JsonNumber(session_ms)
       << ", \"first_run_ms\": " << JsonNumber(first_ms)
       << ", \"cold_start_ms\": " << JsonNumber(load_ms + session_ms + first_ms)
       << ", \"latency_ms\": {\"min\": " << JsonNumber(lat.min)
       << ", \"median\": " << JsonNumber(lat.median) << ", \"mean\": " << JsonNumber(lat.mean)
       << ", \"max\": " << JsonNumber(lat.max) << "}, \"peak_rss_kb\": " << rss
       << ", \"arena_bytes\": " << session.memory().arena_bytes
       << ", \"placement\": " << JsonString(PlacementLine(session));
    if (args.profile) os << ", \"profile\": " << FormatProfileJson(report);
    if (!dsp_json.empty()) os << ", \"dsp\": " << dsp_json;
    os << "}\n";
    std::cout << os.str();
    return Status::Ok();
  }
  std::printf("model: %s\n", args.model.c_str());
  std::printf("device: %s  placement: %s\n", args.device.device.c_str(),
              PlacementLine(session).c_str());
  if (!gpu.empty()) std::printf("gpu: %s\n", gpu.c_str());
  std::printf(
      "threads %d, streams %d (%s), arena %s KiB\n", args.threads, session.memory().streams,
      session.memory().concurrent ? "concurrent" : "in order",
      GroupDigits(static_cast<int64_t>((session.memory().arena_bytes + 1023) / 1024)).c_str());
  std::printf("load: %.2f ms   session: %.2f ms   first run: %.2f ms   (cold start %.1f ms)\n",
              load_ms, session_ms, first_ms, load_ms + session_ms + first_ms);
  std::printf(
      "latency over %d runs (after %d warm-ups): min %.3f  median %.3f  mean %.3f  max %.3f ms\n",
      args.runs, args.warmup, lat.min, lat.median, lat.mean, lat.max);
  std::printf("peak RSS: %s KiB\n", GroupDigits(rss).c_str());
  if (args.profile) std::printf("\n%s", FormatProfileText(report).c_str());
  if (!dsp_text.empty()) std::printf("\n%s", dsp_text.c_str());
  return Status::Ok();
}

}  // namespace

void RegisterBench(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd =
      app.add_subcommand("bench", "Time a model: load, session, latency, peak RSS, profile");
  cmd->add_option("model", args->model, "Model file (.onnx, .tflite or .kiln)")->required();
  cmd->add_option("--runs", args->runs, "Timed runs")->default_val(20);
  cmd->add_option("--warmup", args->warmup, "Untimed runs first")->default_val(5);
  cmd->add_flag("--profile", args->profile,
                "Per-op tables (GPU ops timed by OpenCL event timestamps): run order, slowest "
                "ops, by op type");
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  AddIsaFlag(*cmd, &args->isa);
  AddThreadsFlag(*cmd, &args->threads);
  AddDeviceFlags(*cmd, &args->device);
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback(
      [args, exit_code] { RunCommand("bench", exit_code, [&] { return Bench(*args); }); });
}

}  // namespace kiln::cli
