// The `auto` range algorithm: the int8 model is compiled with each candidate range and the one
// whose predictions stay closest to the float model's on calibration samples is kept.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "calibration/sample_source.h"
#include "calibration/stats_file.h"
#include "compiler/pipeline.h"
#include "quant/quantize_config.h"

namespace kiln::quant {

struct RangeCandidate {
  RangeSpec range;
  double divergence = 0;  // PredictionDivergence from the float model
};

struct RangeChoice {
  RangeSpec range;
  double divergence = 0;  // the chosen range's
  size_t samples = 0;     // the calibration samples the divergences were measured on
  std::vector<RangeCandidate> candidates;
};

// Tries mse, percentile:99.99 and percentile:99.999 with `config` otherwise unchanged, measured
// on every (size / 100)-th sample of `calibration` (fewer than 200, spread over the set); `tried`
// (optional) hears of each candidate.
Expected<RangeChoice> ChooseRange(const Graph& imported, const CompileOptions& options,
                                  const QuantizeConfig& config,
                                  std::shared_ptr<const calib::CalibrationStats> stats,
                                  const Graph& float_graph, const calib::SampleSource& source,
                                  const std::vector<size_t>& calibration, int threads,
                                  const std::function<void(const RangeCandidate&)>& tried);

}  // namespace kiln::quant
