// Times the CPU convolution routines on the real layer shapes of resnet18 / mobilenetv2 /
// squeezenet and prints per-layer GFLOP/s against one core's measured FMA peak.
//
//   kiln_cpu_conv_bench [--model NAME|all] [--isa auto|scalar|avx2|avx512] [--threads 1,2]
//                       [--algo auto|gemm|winograd] [--min-ms 300] [--cpu-time] [--block16o]
//
// --block16o times what compiled models run today: weights in the compiler's Block16O layout
// (FusedConv), so 3x3 stride-1 layers take the GEMM path (no Winograd layout yet);
// --block16o-wino adds Winograd over the proposed 16-block layout of its transformed weights.
//
// --cpu-time times 1-thread runs with the thread's CPU clock instead of the wall clock, which
// keeps figures usable on a machine shared with other work (time slices taken by others are
// not counted); multi-thread runs always use the wall clock.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "bench/conv_layers.h"
#include "bench/fma_peak.h"
#include "ir/layout.h"
#include "backends/cpu/kernels/conv.h"
#include "backends/cpu/kernels/conv_packing.h"
#include "kernels/cpu_features.h"

namespace kiln::bench {
namespace {

struct Options {
  std::string model = "all";
  std::string isa = "auto";
  std::vector<int> threads = {1, 2};
  std::string algo = "auto";
  double min_ms = 300.0;  // time spent per layer and thread count
  bool cpu_time = false;
  bool block16o = false;
  bool block16o_wino = false;
};

double NowMs() {
  return std::chrono::duration<double, std::milli>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

double ThreadCpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e3 + static_cast<double>(ts.tv_nsec) * 1e-6;
}

// Median of per-run times, runs repeated until `min_ms` has passed (at least 5 runs).
template <typename F>
double MedianMs(F&& run, double min_ms, bool cpu_clock) {
  for (int i = 0; i < 3; ++i) run();
  std::vector<double> t;
  const double start = NowMs();
  while (t.size() < 5 || (NowMs() - start < min_ms && t.size() < 2000)) {
    const double t0 = cpu_clock ? ThreadCpuMs() : NowMs();
    run();
    t.push_back((cpu_clock ? ThreadCpuMs() : NowMs()) - t0);
  }
  std::nth_element(t.begin(), t.begin() + t.size() / 2, t.end());
  return t[t.size() / 2];
}

int Main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (a == "--model")
      o.model = v, ++i;
    else if (a == "--isa")
      o.isa = v, ++i;
    else if (a == "--algo")
      o.algo = v, ++i;
    else if (a == "--min-ms")
      o.min_ms = std::atof(v), ++i;
    else if (a == "--cpu-time")
      o.cpu_time = true;
    else if (a == "--block16o")
      o.block16o = true;
    else if (a == "--block16o-wino")
      o.block16o = o.block16o_wino = true;
    else if (a == "--threads") {
      o.threads.clear();
      for (const char* p = v; *p;) {
        o.threads.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p == ',') ++p;
      }
      ++i;
    } else {
      std::fprintf(stderr, "unknown flag %s\n", a.c_str());
      return 2;
    }
  }
  auto isa = cpu::ParseCpuIsa(o.isa);
  if (!isa.ok()) {
    std::fprintf(stderr, "%s\n", isa.status().ToString().c_str());
    return 2;
  }
  const cpu::CpuKernels* kernels = cpu::GetCpuKernels(*isa);
  if (!kernels) return 2;
  const double peak = MeasureFmaPeakGflops(*isa);
  std::printf("isa %s, one core's measured FMA peak %.1f GFLOP/s\n",
              std::string(cpu::IsaName(kernels->isa)).c_str(), peak);
  std::printf("%-12s %2s %-44s %-9s %2s %9s %8s %6s\n", "model", "n", "layer", "algo", "T",
              "median_ms", "GFLOP/s", "%peak");
  int max_threads = 1;
  for (int t : o.threads) max_threads = std::max(max_threads, t);
  ThreadPool pool(max_threads);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> dist(-1.f, 1.f);
  std::map<std::pair<std::string, int>, double> totals;
  for (const ConvLayer& l : BenchConvLayers()) {
    if (o.model != "all" && o.model != l.model) continue;
    cpu::Conv2dGeometry g;
    g.in_c = l.c;
    g.in_h = l.h;
    g.in_w = l.w;
    g.out_c = l.oc;
    g.kernel_h = l.kh;
    g.kernel_w = l.kw;
    g.stride_h = g.stride_w = l.stride;
    g.pad_top = g.pad_left = g.pad_bottom = g.pad_right = l.pad;
    g.groups = l.group;
    g.ComputeOutput();
    std::vector<float> x(static_cast<size_t>(g.in_c * g.in_plane())), w(g.out_c * g.gemm_k()),
        bias(g.out_c), y(static_cast<size_t>(g.out_c * g.out_plane()));
    for (float& f : x) f = dist(rng);
    for (float& f : w) f = dist(rng);
    for (float& f : bias) f = dist(rng);
    cpu::ConvAlgo algo = cpu::ChooseConvAlgo(g);
    if (o.algo == "gemm") algo = cpu::ConvAlgo::kGemm;
    if (o.algo == "winograd" && cpu::WinogradApplies(g)) algo = cpu::ConvAlgo::kWinograd;
    cpu::ConvWeights format = cpu::ConvWeights::kPanels8;
    Expected<std::vector<float>> packed = std::vector<float>();
    bool wino16 = false;
    if (o.block16o && algo == cpu::ConvAlgo::kWinograd && o.block16o_wino) {
      wino16 = true;
      packed->resize(cpu::ConvWino43Block16Floats(g));
      cpu::PackConvWino43Block16(g, w.data(), packed->data());
    } else if (o.block16o) {
      if (algo == cpu::ConvAlgo::kWinograd) algo = cpu::ConvAlgo::kGemm;
      format = cpu::ConvWeights::kBlock16O;
      const Shape ws = {g.out_c, g.in_c / g.groups, g.kernel_h, g.kernel_w};
      auto bytes = PackLayout(Layout::kBlock16O, DType::kF32, ws,
                              reinterpret_cast<const uint8_t*>(w.data()), w.size() * 4);
      if (!bytes.ok()) return 2;
      packed->resize(bytes->size() / 4);
      std::memcpy(packed->data(), bytes->data(), bytes->size());
    } else {
      packed = cpu::PackConvWeights(g, cpu::ConvWeightLayout(algo), w.data());
    }
    const ActivationParams relu{Activation::kRelu, 0.f, 0.f};
    for (int threads : o.threads) {
      cpu::CpuConv conv(g, algo, *kernels, threads, format);
      if (wino16) conv = cpu::CpuConv(g, algo, *kernels, threads, cpu::ConvWeights::kWino43Block16);
      std::vector<uint8_t> scratch(conv.ScratchBytes() + 64);
      void* s = scratch.data() + (64 - reinterpret_cast<uintptr_t>(scratch.data()) % 64) % 64;
      ThreadPool* p = threads > 1 ? &pool : nullptr;
      const double ms = MedianMs(
          [&] { conv.Run(x.data(), packed->data(), bias.data(), nullptr, relu, y.data(), s, p); },
          o.min_ms, o.cpu_time && threads == 1);
      const double gflops = 2.0 * static_cast<double>(g.macs()) / (ms * 1e6);
      std::printf("%-12s %2d %-44s %-9s %2d %9.4f %8.1f %5.1f%%\n", l.model, l.count,
                  g.ToString().c_str(), std::string(cpu::ConvAlgoName(algo)).c_str(), threads, ms,
                  gflops, peak > 0 ? 100.0 * gflops / (peak * threads) : 0.0);
      std::fflush(stdout);
      totals[{l.model, threads}] += ms * l.count;
    }
  }
  for (const auto& [key, ms] : totals) {
    std::printf("total conv time %-12s threads %d: %.3f ms\n", key.first.c_str(), key.second, ms);
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) { return kiln::bench::Main(argc, argv); }
