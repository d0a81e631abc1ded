// kiln bench MODEL [--threads N] [--runs R] [--warmup W] [--profile] [--json] [--isa ISA]:
// load (verify, or import + compile for ONNX) time, session creation time, latency
// min/median/mean/max over R timed runs after W warm-ups on seeded random inputs, peak RSS,
// and with --profile the per-op tables of profile_report.h.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/model_source.h"
#include "tools/kiln/profile_report.h"
#include "tools/kiln/session_setup.h"

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

std::string PlacementLine(const Session& s) {
  std::map<std::string, int> counts;
  for (const std::string& e : s.Placement()) {
    if (e != "-") counts[e]++;
  }
  std::string line;
  for (const auto& [e, c] : counts) line += (line.empty() ? "" : ", ") + e + " " + std::to_string(c);
  return line;
}

Status Bench(BenchArgs& args) {
  KILN_RETURN_IF_ERROR(ParseInputShapes(args.raw_shapes, &args.source));
  KILN_ASSIGN_OR_RETURN(Isa isa, ParseIsa(args.isa));
  args.source.compile.target_isa = isa;
  if (args.runs < 1 || args.warmup < 0) {
    return InvalidArgument("--runs must be at least 1 and --warmup at least 0");
  }
  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(args.model, args.source));
  const double load_ms = MsSince(t0);
  t0 = std::chrono::steady_clock::now();
  SessionOptions options;
  options.cpu_max_isa = isa;
  options.num_threads = args.threads;
  options.profile = args.profile;
  if (args.threads < 1) return InvalidArgument("--threads must be at least 1");
  auto created = Session::Create(loaded.graph, options, loaded.plan);
  if (!created.ok()) return created.status().WithContext(args.model);
  const double session_ms = MsSince(t0);
  Session& session = **created;
  for (const HostTensor& t : MakeInputs(session)) {
    KILN_ASSIGN_OR_RETURN(size_t index, session.InputIndex(t.name));
    KILN_RETURN_IF_ERROR(session.SetInput(index, t));
  }
  for (int i = 0; i < args.warmup; ++i) KILN_RETURN_IF_ERROR(session.Run().WithContext("run"));
  // The profile covers the timed runs only.
  std::vector<NodeProfile> before = session.profile();
  std::vector<double> ms;
  for (int i = 0; i < args.runs; ++i) {
    t0 = std::chrono::steady_clock::now();
    KILN_RETURN_IF_ERROR(session.Run().WithContext("run"));
    ms.push_back(MsSince(t0));
  }
  const Latency lat = Summarize(ms);
  const int64_t rss = PeakRssKb();
  std::vector<NodeProfile> timed = session.profile();
  for (size_t i = 0; i < timed.size() && i < before.size(); ++i) {
    timed[i].total_ms -= before[i].total_ms;
    timed[i].runs -= before[i].runs;
  }
  const ProfileReport report = BuildProfileReport(session.graph(), timed);
  if (args.json) {
    std::ostringstream os;
    os << "{\"model\": " << JsonString(args.model) << ", \"threads\": " << args.threads
       << ", \"runs\": " << args.runs << ", \"warmup\": " << args.warmup
       << ", \"streams\": " << session.memory().streams
       << ", \"load_ms\": " << JsonNumber(load_ms) << ", \"session_ms\": " << JsonNumber(session_ms)
       << ", \"latency_ms\": {\"min\": " << JsonNumber(lat.min) << ", \"median\": "
       << JsonNumber(lat.median) << ", \"mean\": " << JsonNumber(lat.mean)
       << ", \"max\": " << JsonNumber(lat.max) << "}, \"peak_rss_kb\": " << rss
       << ", \"arena_bytes\": " << session.memory().arena_bytes
       << ", \"placement\": " << JsonString(PlacementLine(session));
    if (args.profile) os << ", \"profile\": " << FormatProfileJson(report);
    os << "}\n";
    std::cout << os.str();
    return Status::Ok();
  }
  std::printf("model: %s\n", args.model.c_str());
  std::printf("placement: %s\n", PlacementLine(session).c_str());
  std::printf("threads %d, streams %d (%s), arena %s KiB\n", args.threads,
              session.memory().streams, session.memory().concurrent ? "concurrent" : "in order",
              GroupDigits(static_cast<int64_t>((session.memory().arena_bytes + 1023) / 1024)).c_str());
  std::printf("load: %.2f ms   session: %.2f ms\n", load_ms, session_ms);
  std::printf("latency over %d runs (after %d warm-ups): min %.3f  median %.3f  mean %.3f  max %.3f ms\n",
              args.runs, args.warmup, lat.min, lat.median, lat.mean, lat.max);
  std::printf("peak RSS: %s KiB\n", GroupDigits(rss).c_str());
  if (args.profile) std::printf("\n%s", FormatProfileText(report).c_str());
  return Status::Ok();
}

}  // namespace

void RegisterBench(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand("bench", "Time a model: load, session, latency, peak RSS, profile");
  cmd->add_option("model", args->model, "Model file (.onnx or .kiln)")->required();
  cmd->add_option("--runs", args->runs, "Timed runs")->default_val(20);
  cmd->add_option("--warmup", args->warmup, "Untimed runs first")->default_val(5);
  cmd->add_flag("--profile", args->profile, "Per-op tables: run order, slowest ops, by op type");
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  AddIsaFlag(*cmd, &args->isa);
  AddThreadsFlag(*cmd, &args->threads);
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback([args, exit_code] { RunCommand("bench", exit_code, [&] { return Bench(*args); }); });
}

}  // namespace kiln::cli
