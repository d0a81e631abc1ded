// kiln_soak: runs sessions for N minutes, round-robin over models x devices x thread counts,
// and prints every interval (default one minute) each session's runs and latency percentiles
// for that interval, and the process's RSS; then a summary that flags RSS growth after the
// first interval, unstable p99 latency and any failed run (exit status 1). bench/soak/README.md.
//
//   kiln_soak [--minutes 30] [--models mnist,squeezenet,mobilenetv2] [--devices cpu,gpu]
//             [--threads 1,2] [--interval-s 60] [--shared DIR] [--max-rss-growth-kib 1024]
//
// Every run's outputs are checked against the model's test_data_set_0 reference (rtol 1e-3,
// atol 1e-4); a mismatch counts as a failed run. GPU sessions fail rather than fall back
// (AcceleratorFailure::kFail), so a GPU fault shows as a failed run.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "backends/opencl/gpu_options.h"
#include "compiler/frontend.h"
#include "compiler/pipeline.h"
#include "compiler/tensor_compare.h"
#include "parsers/onnx/onnx_parser.h"
#include "parsers/onnx/tensor_proto.h"
#include "runtime/session.h"

namespace kiln::bench {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Args {
  double minutes = 30;
  std::vector<std::string> models = {"mnist", "squeezenet", "mobilenetv2"};
  std::vector<std::string> devices = {"cpu", "gpu"};
  std::vector<int> threads = {1, 2};
  double interval_s = 60;
  std::string shared;
  double max_rss_growth_kib = 1024;
};

std::vector<std::string> Split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string item; std::getline(in, item, ',');) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

Expected<Args> ParseArgs(int argc, char** argv) {
  Args a;
  const char* env = std::getenv("KILN_SHARED_DIR");
  a.shared = env ? env : "../shared";
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) return InvalidArgument("missing value after " + k);
    const std::string v = argv[++i];
    if (k == "--minutes") {
      a.minutes = std::atof(v.c_str());
    } else if (k == "--models") {
      a.models = Split(v);
    } else if (k == "--devices") {
      a.devices = Split(v);
    } else if (k == "--threads") {
      a.threads.clear();
      for (const auto& t : Split(v)) a.threads.push_back(std::atoi(t.c_str()));
    } else if (k == "--interval-s") {
      a.interval_s = std::atof(v.c_str());
    } else if (k == "--shared") {
      a.shared = v;
    } else if (k == "--max-rss-growth-kib") {
      a.max_rss_growth_kib = std::atof(v.c_str());
    } else {
      return InvalidArgument("unknown option " + k);
    }
  }
  if (a.minutes <= 0 || a.interval_s <= 0 || a.threads.empty() || a.models.empty() ||
      a.devices.empty()) {
    return InvalidArgument("--minutes, --interval-s and the lists must be positive / non-empty");
  }
  return a;
}

// Resident set size, from /proc/self/statm.
double RssKib() {
  std::FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  const int n = std::fscanf(f, "%lu %lu", &size, &resident);
  std::fclose(f);
  return n == 2
             ? static_cast<double>(resident) * static_cast<double>(::sysconf(_SC_PAGESIZE)) / 1024.0
             : 0;
}

double Percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t rank = static_cast<size_t>(p / 100.0 * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(rank, v.size() - 1)];
}

// p99 counts as stable when no third of the soak's later runs has a p99 above this many times
// another third's.
constexpr double kMaxThirdsRatio = 1.5;

std::string Fixed2(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

struct Soaked {
  std::string label;  // "squeezenet gpu t2"
  std::unique_ptr<Session> session;
  std::vector<HostTensor> inputs, expected;
  std::vector<double> interval_ms;  // latencies of the current interval
  std::vector<double> p99_by_interval;
  std::vector<double> all_ms;
  std::vector<size_t> interval_ends;  // all_ms.size() at the end of each interval
  int64_t runs = 0, failed = 0;
  std::string first_error;
};

// The p99 of the runs after the first interval in three consecutive windows of whole
// intervals (fewer windows when fewer than three later intervals).
std::vector<double> ThirdsP99(const Soaked& s) {
  std::vector<double> out;
  if (s.interval_ends.size() < 2) return out;
  const size_t later = s.interval_ends.size() - 1, windows = std::min<size_t>(3, later);
  for (size_t w = 0; w < windows; ++w) {
    const size_t first = s.interval_ends[w * later / windows];
    const size_t last = s.interval_ends[(w + 1) * later / windows];
    std::vector<double> runs(s.all_ms.begin() + static_cast<std::ptrdiff_t>(first),
                             s.all_ms.begin() + static_cast<std::ptrdiff_t>(last));
    if (!runs.empty()) out.push_back(Percentile(runs, 99));
  }
  return out;
}

Expected<Soaked> MakeSoaked(const Args& a, const std::string& model, const std::string& device,
                            int threads) {
  Soaked s;
  s.label = model + " " + device + " t" + std::to_string(threads);
  const fs::path dir = fs::path(a.shared) / "models" / model;
  KILN_ASSIGN_OR_RETURN(std::vector<std::string> names,
                        ReadOnnxInputNames((dir / "model.onnx").string()));
  const std::string set = (dir / "test_data_set_0").string();
  KILN_ASSIGN_OR_RETURN(s.inputs, ReadTensorProtoSet(set, "input_"));
  KILN_ASSIGN_OR_RETURN(s.expected, ReadTensorProtoSet(set, "output_"));
  if (s.inputs.empty() || s.expected.empty()) {
    return NotFound("no test_data_set_0 under " + dir.string());
  }
  OnnxParseOptions parse;
  for (size_t i = 0; i < s.inputs.size() && i < names.size(); ++i) {
    s.inputs[i].name = names[i];
    parse.input_shapes[names[i]] = s.inputs[i].shape;
  }
  KILN_ASSIGN_OR_RETURN(Graph graph, ImportOnnx((dir / "model.onnx").string(), parse));
  const bool gpu = device == "gpu";
  CompileOptions copts;
  copts.target_isa = kBestCpuIsa;
  if (gpu) copts.target_backend = kExecutorOpenCL;
  KILN_ASSIGN_OR_RETURN(CompiledModel compiled, CompileGraph(std::move(graph), copts));
  SessionOptions options;
  options.cpu_max_isa = kBestCpuIsa;
  options.num_threads = threads;
  options.executors = gpu ? std::vector<std::string>{kExecutorOpenCL, kExecutorCpu}
                          : std::vector<std::string>{kExecutorCpu};
  options.on_accelerator_failure = AcceleratorFailure::kFail;
  KILN_ASSIGN_OR_RETURN(
      s.session, Session::Create(std::make_shared<const Graph>(std::move(compiled.graph)), options,
                                 std::make_shared<const ExecutionPlan>(std::move(compiled.plan))));
  if (gpu && s.session->executor(kExecutorOpenCL) == nullptr) {
    return NotFound(s.label + ": no OpenCL device");
  }
  return s;
}

// One run: inputs set, run, outputs read and checked; returns its wall time.
Status RunOnce(Soaked& s, double* ms) {
  const auto t0 = Clock::now();
  KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> outs, s.session->Run(s.inputs));
  *ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
  if (outs.size() != s.expected.size()) return Internal("output count differs");
  for (size_t i = 0; i < outs.size(); ++i) {
    KILN_ASSIGN_OR_RETURN(TensorComparison c, CompareTensors(outs[i], s.expected[i], 1e-3, 1e-4));
    if (!c.within_tolerance) {
      return Internal("output " + std::to_string(i) +
                      " outside tolerance: " + ComparisonSummary(c, s.expected[i].num_elements()));
    }
  }
  return Status::Ok();
}

int Main(int argc, char** argv) {
  auto args = ParseArgs(argc, argv);
  if (!args.ok()) {
    std::fprintf(stderr, "kiln_soak: %s\n", args.status().message().c_str());
    return 2;
  }
  const Args& a = *args;
  std::vector<Soaked> all;
  for (const auto& m : a.models) {
    for (const auto& d : a.devices) {
      for (int t : a.threads) {
        auto s = MakeSoaked(a, m, d, t);
        if (!s.ok()) {
          std::fprintf(stderr, "kiln_soak: %s %s t%d: %s\n", m.c_str(), d.c_str(), t,
                       s.status().ToString().c_str());
          return 1;
        }
        all.push_back(std::move(s).value());
      }
    }
  }
  std::printf("soak: %zu sessions, %.1f min, report every %.0f s, RSS at start %.0f KiB\n",
              all.size(), a.minutes, a.interval_s, RssKib());
  const auto start = Clock::now();
  const auto end = start + std::chrono::duration<double>(a.minutes * 60);
  auto next_report = start + std::chrono::duration<double>(a.interval_s);
  std::vector<double> rss;  // at the end of each interval
  int interval = 0;
  bool done = false;
  while (!done) {
    for (Soaked& s : all) {
      double ms = 0;
      const Status st = RunOnce(s, &ms);
      ++s.runs;
      if (st.ok()) {
        s.interval_ms.push_back(ms);
        s.all_ms.push_back(ms);
      } else if (s.failed++ == 0) {
        s.first_error = st.ToString();
        std::printf("FAILED run of %s: %s\n", s.label.c_str(), s.first_error.c_str());
      }
    }
    const auto now = Clock::now();
    done = now >= end;
    if (now < next_report && !done) continue;
    ++interval;
    rss.push_back(RssKib());
    const double t_min = std::chrono::duration<double>(now - start).count() / 60;
    std::printf("-- interval %d (%.1f min): RSS %.0f KiB\n", interval, t_min, rss.back());
    for (Soaked& s : all) {
      const double p99 = Percentile(s.interval_ms, 99);
      s.p99_by_interval.push_back(p99);
      s.interval_ends.push_back(s.all_ms.size());
      std::printf(
          "   %-24s runs %6zu  p50 %8.2f  p90 %8.2f  p99 %8.2f ms  (total %lld, failed %lld)\n",
          s.label.c_str(), s.interval_ms.size(), Percentile(s.interval_ms, 50),
          Percentile(s.interval_ms, 90), p99, static_cast<long long>(s.runs),
          static_cast<long long>(s.failed));
      s.interval_ms.clear();
    }
    std::fflush(stdout);
    next_report = now + std::chrono::duration<double>(a.interval_s);
  }

  // Summary. RSS growth counts from the end of the first interval (caches, pools and lazily
  // touched pages settle in it). p99 stability is judged on the later intervals' runs in thirds
  // (the first, middle and last ten minutes of a 30-minute soak), each third's p99 over all of
  // its runs: a drift over time (queues, fragmentation, a leak's paging) moves a whole third,
  // while one interval's p99 is about its largest run (33 runs a minute for each session here)
  // and one scheduler preemption of a sub-millisecond model doubles it.
  bool ok = true;
  std::printf("== summary after %d interval(s)\n", interval);
  for (const Soaked& s : all) {
    std::vector<double> later(s.p99_by_interval.begin() + (s.p99_by_interval.size() > 1),
                              s.p99_by_interval.end());
    const double worst = later.empty() ? 0 : *std::max_element(later.begin(), later.end());
    const std::vector<double> thirds = ThirdsP99(s);
    const auto [lo, hi] = std::minmax_element(thirds.begin(), thirds.end());
    const bool stable = thirds.empty() || *hi <= kMaxThirdsRatio * *lo;
    std::string by_third;
    for (double t : thirds) {
      if (!by_third.empty()) by_third += " / ";
      by_third += Fixed2(t);
    }
    std::printf(
        "   %-24s runs %7lld failed %lld  p50 %8.2f p99 %8.2f ms  p99 by third %s ms  "
        "interval p99 max %.2f ms%s\n",
        s.label.c_str(), static_cast<long long>(s.runs), static_cast<long long>(s.failed),
        Percentile(s.all_ms, 50), Percentile(s.all_ms, 99), by_third.c_str(), worst,
        stable ? "" : "  UNSTABLE p99");
    if (s.failed) {
      std::printf("     first failure: %s\n", s.first_error.c_str());
      ok = false;
    }
  }
  if (rss.size() >= 2) {
    const double base = rss.front();
    const double peak = *std::max_element(rss.begin() + 1, rss.end());
    const double growth = peak - base;
    const bool flat = growth <= a.max_rss_growth_kib;
    std::printf(
        "RSS after interval 1 %.0f KiB, peak later %.0f KiB, last %.0f KiB: growth %.0f "
        "KiB (limit %.0f): %s\n",
        base, peak, rss.back(), growth, a.max_rss_growth_kib, flat ? "flat" : "GROWING");
    ok = ok && flat;
  } else {
    std::printf("RSS %.0f KiB (one interval: no growth measured)\n", rss.empty() ? 0 : rss[0]);
  }
  std::printf("soak: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::Main(argc, argv); }
