// kiln quantize's steps: calibration graph, statistics, quantized compile.
#include "quantizer/quantize_driver.h"

#include "calibration/observer.h"
#include "calibration/progress.h"

namespace kiln::quant {

Expected<CompiledModel> CompileForCalibration(const Graph& imported, CompileOptions options,
                                              const QuantizeConfig& config) {
  auto cfg = std::make_shared<QuantizeConfig>(config);
  cfg->stats = nullptr;
  options.quantize = std::move(cfg);
  return CompileGraph(imported, options);
}

Expected<CompiledModel> CompileQuantized(const Graph& imported, CompileOptions options,
                                         QuantizeConfig config,
                                         std::shared_ptr<const calib::CalibrationStats> stats) {
  config.stats = std::move(stats);
  options.quantize = std::make_shared<QuantizeConfig>(std::move(config));
  return CompileGraph(imported, options);
}

Expected<calib::CalibrationStats> CollectStatistics(const Graph& float_graph,
                                                    const CalibrationRun& run,
                                                    const std::string& key) {
  KILN_ASSIGN_OR_RETURN(auto observed, calib::ObservedSession::Create(
                                           float_graph, calib::IsFloatActivation, run.threads));
  calib::CalibrationStats stats;
  stats.key = key;
  for (size_t i = 0; i < observed->size(); ++i) stats.tensors[observed->name(i)];
  calib::Progress progress("calibrating", run.samples.size(), run.progress);
  for (size_t s : run.samples) {
    KILN_ASSIGN_OR_RETURN(std::vector<HostTensor> inputs, run.source->Load(s));
    KILN_RETURN_IF_ERROR(observed->Run(inputs).WithContext("sample " + run.source->id(s)));
    for (size_t i = 0; i < observed->size(); ++i) {
      const HostTensor& t = observed->tensor(i);
      if (t.dtype != DType::kF32) continue;
      int64_t channels = 0, inner = 1;
      if (t.shape.size() >= 2) {
        channels = t.shape[1];
        inner = NumElements(Shape(t.shape.begin() + 2, t.shape.end()));
      }
      stats.tensors[observed->name(i)].AddSample(t.data<float>(), t.num_elements(), channels,
                                                 inner);
    }
    ++stats.samples;
    progress.Advance();
  }
  progress.Finish();
  return stats;
}

std::vector<size_t> ShardOf(const std::vector<size_t>& all, int index, int count) {
  std::vector<size_t> out;
  for (size_t i = static_cast<size_t>(index); i < all.size(); i += static_cast<size_t>(count)) {
    out.push_back(all[i]);
  }
  return out;
}

Expected<std::pair<int, int>> ParseShard(const std::string& text) {
  const size_t slash = text.find('/');
  auto bad = [&] { return InvalidArgument("shard '" + text + "': expected I/N with 0 <= I < N"); };
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size()) return bad();
  const std::string a = text.substr(0, slash), b = text.substr(slash + 1);
  if (a.size() > 6 || b.size() > 6 || a.find_first_not_of("0123456789") != std::string::npos ||
      b.find_first_not_of("0123456789") != std::string::npos) {
    return bad();
  }
  const int i = std::stoi(a), n = std::stoi(b);
  if (n < 1 || i >= n) return bad();
  return std::make_pair(i, n);
}

}  // namespace kiln::quant
