// kiln bench MODEL [--device cpu|gpu[:N]] [--threads N] [--runs R] [--warmup W] [--profile]
// [--json]: load+verify time, session creation time, first-run and steady latency
// (min/median/mean/max over R runs after W warm-ups), peak RSS; with --profile, per-op tables
// (run order, the slowest ops, a summary by op type) from a separate profiled session, timed
// by OpenCL event timestamps on the GPU and the host clock on the CPU. (Named cmd_benchmark.cc:
// files ending in _bench.cc are benchmarks, which the build keeps out of libraries.)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>

#include "compiler/model_stats.h"
#include "runtime/placement.h"
#include "tools/kiln/cli_util.h"
#include "tools/kiln/commands.h"
#include "tools/kiln/session_setup.h"
#ifdef KILN_WITH_OPENCL
#include "runtime/opencl/opencl_executor.h"
#endif

namespace kiln::cli {
namespace {

struct BenchArgs {
  std::string model;
  int runs = 50;
  int warmup = 5;
  bool profile = false;
  bool json = false;
  std::string isa = "auto";
  int threads = 1;
  DeviceArgs device;
  ModelSourceOptions source;
  std::vector<std::string> raw_shapes;
};

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

long PeakRssKb() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

// Deterministic inputs: uniform [0, 1) floats, small integers, false booleans.
Status SetRandomInputs(Session& s) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<float> uni(0.f, 1.f);
  for (size_t i = 0; i < s.num_inputs(); ++i) {
    const Value& v = s.input_info(i);
    HostTensor t(v.name, v.dtype, v.shape);
    if (v.dtype == DType::kF32) {
      auto* f = reinterpret_cast<float*>(t.bytes.data());
      for (size_t k = 0; k < t.bytes.size() / 4; ++k) f[k] = uni(rng);
    } else if (v.dtype == DType::kF16) {
      auto* h = reinterpret_cast<uint16_t*>(t.bytes.data());
      for (size_t k = 0; k < t.bytes.size() / 2; ++k) h[k] = FloatToHalf(uni(rng));
    }
    KILN_RETURN_IF_ERROR(s.SetInput(i, t));
  }
  return Status::Ok();
}

struct Latency {
  double min = 0, median = 0, mean = 0, max = 0;
};

Latency Summarize(std::vector<double> ms) {
  Latency l;
  if (ms.empty()) return l;
  std::sort(ms.begin(), ms.end());
  l.min = ms.front();
  l.max = ms.back();
  l.median = ms.size() % 2 ? ms[ms.size() / 2] : (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]) / 2;
  l.mean = std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  return l;
}

struct OpRow {
  size_t node = 0;
  std::string name, op, executor, sources, shape;
  double ms = 0;  // average per run
  int64_t macs = 0;
};

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
  return "";
}

void PrintProfile(const std::vector<OpRow>& rows, double total) {
  std::printf("\nper-op profile (avg over runs, run order):\n");
  std::printf("%4s  %-18s %-30s %-7s %9s %6s %6s %12s %8s  %s\n", "#", "op", "name", "device", "ms",
              "%", "cdf%", "MACs", "GMAC/s", "output");
  double cdf = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    const OpRow& r = rows[i];
    cdf += r.ms;
    const double gmacs = r.ms > 0 && r.macs > 0 ? static_cast<double>(r.macs) / (r.ms * 1e6) : 0;
    std::printf("%4zu  %-18s %-30.30s %-7s %9.4f %6.2f %6.2f %12s %8.1f  %s\n", i, r.op.c_str(),
                r.name.c_str(), r.executor.c_str(), r.ms, 100 * r.ms / total, 100 * cdf / total,
                GroupDigits(r.macs).c_str(), gmacs, r.shape.c_str());
  }
  std::vector<OpRow> slow = rows;
  std::stable_sort(slow.begin(), slow.end(), [](auto& a, auto& b) { return a.ms > b.ms; });
  std::printf("\nslowest ops:\n");
  for (size_t i = 0; i < std::min<size_t>(10, slow.size()); ++i) {
    std::printf("  %9.4f ms %6.2f%%  %-18s %s  <- %s\n", slow[i].ms, 100 * slow[i].ms / total,
                slow[i].op.c_str(), slow[i].name.c_str(), slow[i].sources.c_str());
  }
  std::map<std::string, std::tuple<int, double, int64_t>> by_type;
  for (const OpRow& r : rows) {
    auto& [n, ms, macs] = by_type[r.op + " (" + r.executor + ")"];
    ++n;
    ms += r.ms;
    macs += r.macs;
  }
  std::printf("\nby op type:\n  %-28s %6s %9s %6s %14s %8s\n", "op (device)", "count", "ms", "%",
              "MACs", "GMAC/s");
  for (const auto& [op, v] : by_type) {
    const auto& [n, ms, macs] = v;
    std::printf("  %-28s %6d %9.4f %6.2f %14s %8.1f\n", op.c_str(), n, ms, 100 * ms / total,
                GroupDigits(macs).c_str(), ms > 0 ? static_cast<double>(macs) / (ms * 1e6) : 0);
  }
  std::printf("  %-28s %6zu %9.4f (sum of op times)\n", "total", rows.size(), total);
}

Status Bench(BenchArgs& args) {
  KILN_RETURN_IF_ERROR(ParseInputShapes(args.raw_shapes, &args.source));
  KILN_ASSIGN_OR_RETURN(Isa isa, ParseIsa(args.isa));
  if (args.runs < 1 || args.warmup < 0) {
    return InvalidArgument("--runs must be >= 1 and --warmup >= 0");
  }
  args.source.compile.target_isa = isa;
  args.source.compile.target_gpu = args.device.wants_gpu();

  auto t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(LoadedModel loaded, LoadModel(args.model, args.source));
  const double load_ms = MsSince(t0);
  t0 = std::chrono::steady_clock::now();
  KILN_ASSIGN_OR_RETURN(auto session, CreateSession(loaded, isa, args.threads, args.device));
  const double session_ms = MsSince(t0);
  KILN_RETURN_IF_ERROR(SetRandomInputs(*session));
  t0 = std::chrono::steady_clock::now();
  KILN_RETURN_IF_ERROR(session->Run().WithContext("run"));
  const double first_ms = MsSince(t0);
  for (int i = 0; i < args.warmup; ++i) KILN_RETURN_IF_ERROR(session->Run().WithContext("run"));
  std::vector<double> ms;
  for (int i = 0; i < args.runs; ++i) {
    t0 = std::chrono::steady_clock::now();
    KILN_RETURN_IF_ERROR(session->Run().WithContext("run"));
    ms.push_back(MsSince(t0));
  }
  const Latency lat = Summarize(ms);
  const std::string placement = PlacementSummary(session->Placement());
  const std::string gpu = GpuLine(*session);
  const long rss = PeakRssKb();

  std::vector<OpRow> rows;
  double total = 0;
  if (args.profile) {
    KILN_ASSIGN_OR_RETURN(auto prof, CreateSession(loaded, isa, args.threads, args.device, true));
    KILN_RETURN_IF_ERROR(SetRandomInputs(*prof));
    for (int i = 0; i < args.warmup; ++i) KILN_RETURN_IF_ERROR(prof->Run());
    // Warm-up runs are profiled too: count only the measured ones.
    std::vector<std::pair<double, int64_t>> base;
    for (const auto& p : prof->profile()) base.emplace_back(p.total_ms, p.runs);
    for (int i = 0; i < args.runs; ++i) KILN_RETURN_IF_ERROR(prof->Run());
    const Graph& g = prof->graph();
    std::map<std::string, NodeId> by_name;
    for (size_t n = 0; n < g.num_nodes(); ++n) {
      by_name.emplace(g.node(static_cast<NodeId>(n)).name, static_cast<NodeId>(n));
    }
    size_t k = 0;
    for (const auto& p : prof->profile()) {
      OpRow r;
      const int64_t runs = p.runs - base[k].second;
      r.ms = runs > 0 ? (p.total_ms - base[k].first) / static_cast<double>(runs) : 0;
      ++k;
      const auto found = by_name.find(p.node);
      const std::optional<NodeId> id =
          found == by_name.end() ? std::nullopt : std::optional<NodeId>(found->second);
      r.name = p.node;
      r.op = std::string(OpTypeName(p.op));
      r.executor = p.executor;
      if (id) {
        const Node& n = g.node(*id);
        for (size_t s = 0; s < n.sources.size(); ++s) r.sources += (s ? "," : "") + n.sources[s];
        if (!n.outputs.empty() && n.outputs[0] != kNoValue) {
          r.shape = ShapeToString(g.value(n.outputs[0]).shape);
        }
        r.macs = std::max<int64_t>(0, NodeMacs(g, n));
      }
      total += r.ms;
      rows.push_back(std::move(r));
    }
  }

  if (args.json) {
    std::ostringstream os;
    os << "{\n  \"model\": " << JsonString(args.model)
       << ",\n  \"device\": " << JsonString(args.device.device)
       << ",\n  \"placement\": " << JsonString(placement);
    if (!gpu.empty()) os << ",\n  \"gpu\": " << JsonString(gpu);
    os << ",\n  \"threads\": " << args.threads << ",\n  \"load_ms\": " << JsonNumber(load_ms)
       << ",\n  \"session_ms\": " << JsonNumber(session_ms)
       << ",\n  \"first_run_ms\": " << JsonNumber(first_ms)
       << ",\n  \"cold_start_ms\": " << JsonNumber(load_ms + session_ms + first_ms)
       << ",\n  \"runs\": " << args.runs << ",\n  \"warmup\": " << args.warmup
       << ",\n  \"latency_ms\": {\"min\": " << JsonNumber(lat.min)
       << ", \"median\": " << JsonNumber(lat.median) << ", \"mean\": " << JsonNumber(lat.mean)
       << ", \"max\": " << JsonNumber(lat.max) << "},\n  \"peak_rss_kb\": " << rss;
    if (args.profile) {
      os << ",\n  \"profile\": [";
      for (size_t i = 0; i < rows.size(); ++i) {
        const OpRow& r = rows[i];
        os << (i ? "," : "") << "\n    {\"op\": " << JsonString(r.op)
           << ", \"name\": " << JsonString(r.name) << ", \"device\": " << JsonString(r.executor)
           << ", \"ms\": " << JsonNumber(r.ms) << ", \"macs\": " << r.macs
           << ", \"sources\": " << JsonString(r.sources) << ", \"output\": " << JsonString(r.shape)
           << "}";
      }
      os << "\n  ]";
    }
    os << "\n}\n";
    std::cout << os.str();
    return Status::Ok();
  }
  std::printf("model: %s\n", args.model.c_str());
  std::printf("device: %s  placement: %s\n", args.device.device.c_str(), placement.c_str());
  if (!gpu.empty()) std::printf("gpu: %s\n", gpu.c_str());
  std::printf("load+verify: %.3f ms  session: %.3f ms  first run: %.3f ms  (cold start %.1f ms)\n",
              load_ms, session_ms, first_ms, load_ms + session_ms + first_ms);
  std::printf("latency over %d runs (%d warm-up): min %.4f  median %.4f  mean %.4f  max %.4f ms\n",
              args.runs, args.warmup, lat.min, lat.median, lat.mean, lat.max);
  std::printf("peak RSS: %ld KiB\n", rss);
  if (args.profile) PrintProfile(rows, total);
  return Status::Ok();
}

}  // namespace

void RegisterBench(CLI::App& app, int* exit_code) {
  auto args = std::make_shared<BenchArgs>();
  auto* cmd = app.add_subcommand(
      "bench", "Time a model: load, session creation, latency over runs, per-op profile");
  cmd->add_option("model", args->model, "Model file (.onnx or .kiln)")->required();
  cmd->add_option("--runs", args->runs, "Timed runs (default 50)")->default_val(50);
  cmd->add_option("--warmup", args->warmup, "Untimed runs first (default 5)")->default_val(5);
  cmd->add_flag("--profile", args->profile,
                "Per-op times (OpenCL event timestamps on the GPU) in run order, slowest ops, "
                "and by op type");
  cmd->add_flag("--json", args->json, "Print JSON instead of text");
  AddIsaFlag(*cmd, &args->isa);
  AddThreadsFlag(*cmd, &args->threads);
  AddDeviceFlags(*cmd, &args->device);
  AddModelSourceFlags(*cmd, &args->source, &args->raw_shapes);
  cmd->callback(
      [args, exit_code] { RunCommand("bench", exit_code, [&] { return Bench(*args); }); });
}

}  // namespace kiln::cli
