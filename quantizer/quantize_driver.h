// The steps of `kiln quantize` as library calls: compile the float graph calibration observes,
// collect statistics over samples (optionally a shard of them), and compile the int8 model
// from the same imported graph with those statistics. Tests and the CLI share them.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "calibration/sample_source.h"
#include "calibration/stats_file.h"
#include "compiler/pipeline.h"
#include "quant/quantize_config.h"

namespace kiln::quant {

// `options` with the float-side settings (equalize, target) and `config` without statistics:
// the graph calibration runs, whose value names the statistics are keyed by.
Expected<CompiledModel> CompileForCalibration(const Graph& imported, CompileOptions options,
                                              const QuantizeConfig& config);

// The int8 model: the same pipeline with the statistics.
Expected<CompiledModel> CompileQuantized(const Graph& imported, CompileOptions options,
                                         QuantizeConfig config,
                                         std::shared_ptr<const calib::CalibrationStats> stats);

// Runs `float_graph` on `samples` of `source`, observing every float activation.
struct CalibrationRun {
  const calib::SampleSource* source = nullptr;
  std::vector<size_t> samples;
  int threads = 1;
  bool progress = true;
};
Expected<calib::CalibrationStats> CollectStatistics(const Graph& float_graph,
                                                    const CalibrationRun& run,
                                                    const std::string& key);

// The samples of shard `index` of `count` (every count-th, starting at index) among `all`.
std::vector<size_t> ShardOf(const std::vector<size_t>& all, int index, int count);
// "I/N" -> (I, N), 0 <= I < N.
Expected<std::pair<int, int>> ParseShard(const std::string& text);

}  // namespace kiln::quant
