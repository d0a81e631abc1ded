// Loader benchmarks: SHA-256 throughput (the loader hashes every section before trusting it)
// and load+verify of signed .kiln files given on the command line via KILN_BENCH_MODELS
// (colon-separated paths) with KILN_BENCH_PUB as the trusted key, both with the default
// copy-while-hashing and with zero-copy mapped weights.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "runtime/model.h"
#include "serializer/signing.h"

namespace {

void BM_Sha256(benchmark::State& state) {
  std::vector<uint8_t> data(static_cast<size_t>(state.range(0)), 0x5a);
  for (auto _ : state) {
    benchmark::DoNotOptimize(kiln::signing::Sha256(data.data(), data.size()));
  }
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * state.range(0));
}
BENCHMARK(BM_Sha256)->Arg(1 << 20)->Arg(16 << 20)->Unit(benchmark::kMillisecond);

void BM_LoadAndVerify(benchmark::State& state, std::string path, std::string pub,
                      bool map_weights) {
  kiln::TrustStore trust;
  if (!pub.empty()) {
    if (auto st = trust.AddPublicKeyFile(pub); !st.ok()) {
      state.SkipWithError(st.ToString().c_str());
      return;
    }
  }
  kiln::LoadOptions options;
  options.allow_unsigned = pub.empty();
  options.map_weights = map_weights;
  for (auto _ : state) {
    auto model = kiln::Model::Load(path, trust, options);
    if (!model.ok()) {
      state.SkipWithError(model.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(model->get());
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* models = std::getenv("KILN_BENCH_MODELS");
  const char* pub = std::getenv("KILN_BENCH_PUB");
  if (models) {
    std::stringstream list(models);
    std::string path;
    while (std::getline(list, path, ':')) {
      if (path.empty()) continue;
      // Default (verified copy, one pass) and zero-copy (--map-weights) side by side.
      for (bool map : {false, true}) {
        benchmark::RegisterBenchmark(
            ("BM_LoadAndVerify/" + std::string(map ? "mapped/" : "copied/") + path).c_str(),
            BM_LoadAndVerify, path, std::string(pub ? pub : ""), map)
            ->Unit(benchmark::kMillisecond);
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
