// The samples of a quantization and what its statistics are of. Of the first `count` samples of
// a source, the last `holdout` are never calibrated on: the accuracy report and budget measure on
// them. The statistics key names the model file, the preprocessing, the float-side compile
// settings and the calibration samples, so that only statistics of the same things merge.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "calibration/sample_source.h"
#include "ir/graph.h"

namespace kiln::quant {

struct CalibrationSet {
  std::unique_ptr<calib::SampleSource> source;
  std::vector<size_t> calibration;  // sample indices calibrated on
  std::vector<size_t> held_back;    // sample indices measured on
};

// The inputs of `g` as samples must match them.
std::vector<calib::SampleInput> SampleInputsOf(const Graph& g);

// Splits `source`: `count` <= 0 takes every sample, `holdout` < 0 holds back a tenth. An error
// when nothing is left to calibrate on; it names the holdout `holdout_name`.
Expected<CalibrationSet> SplitSamples(std::unique_ptr<calib::SampleSource> source, int count,
                                      int holdout, const std::string& holdout_name);

struct StatisticsKeyParts {
  std::string model_sha256;
  std::string preprocess;  // the SPEC as given
  bool equalize = false;
  std::vector<std::pair<std::string, std::vector<int64_t>>> input_shapes;
};
// Equal keys merge. `set` without a source (statistics from files) has no sample ids.
std::string StatisticsKey(const StatisticsKeyParts& parts, const CalibrationSet& set);

}  // namespace kiln::quant
