// Post-training quantization as one call: from an ONNX file and calibration data (or statistics
// files) to the int8 model. Quantize decides what `kiln quantize` does: which samples calibrate
// and which are held back, what the statistics are keyed by, whether they are collected (all
// samples or one shard) or merged from files, the `auto` range search, the accuracy budget and
// the accuracy report. A front end fills a QuantizeRequest from its options, then prints and
// writes what comes back (tools/kiln/cmd_quantize.cc writes the .kiln file).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calibration/stats_file.h"
#include "compiler/pipeline.h"
#include "quant/quantize_config.h"
#include "quantizer/accuracy_budget.h"
#include "quantizer/accuracy_report.h"
#include "quantizer/range_search.h"

namespace kiln::quant {

// Shard `index` of `count` of the calibration samples (ShardOf), 0 <= index < count.
struct Shard {
  int index = 0;
  int count = 1;
};

// Told as the steps finish, so that a front end reports each when it happens (a later step may
// still fail). Every hook is optional.
struct QuantizeHooks {
  // A shard's statistics were collected: `samples` of the `calibration_samples`.
  std::function<void(const Shard&, size_t samples, size_t calibration_samples)> shard_calibrated;
  std::function<void(const std::string& path, const calib::CalibrationStats&)> statistics_written;
  std::function<void(const RangeCandidate&)> range_tried;  // the auto search, each candidate
  std::function<void(const RangeChoice&)> range_chosen;
  std::function<void(const CompiledModel&)> compiled;  // the int8 model, before any budget step
  std::function<void(const BudgetResult&, const BudgetSpec&)> budget_done;
};

// What errors call the request's fields that only the model or the samples can check (the
// others are checked first, by their names here): a front end passes the names its users know.
struct QuantizeFieldNames {
  std::string keep_float = "QuantizeConfig::keep_float";
  std::string int16_nodes = "QuantizeConfig::int16_nodes";
  std::string holdout = "QuantizeRequest::holdout";
  std::string accuracy_report = "QuantizeRequest::accuracy_report";
};

struct QuantizeRequest {
  // The ONNX or TFLite model, with the dims that fix its symbolic input dims (in the order given: they are
  // part of the statistics key).
  std::string model;
  std::vector<std::pair<std::string, std::vector<int64_t>>> input_shapes;

  // How both graphs compile (equalize, target ISA and backend, disabled passes) and how the
  // int8 one is quantized; `config.range` is used unless `auto_range`. `config.stats` is unused.
  CompileOptions options;
  QuantizeConfig config;
  bool auto_range = false;  // search the range algorithm (sym-i16 activations: minmax)

  // Calibration data (calib::OpenSampleSource) and its image preprocessing SPEC
  // (docs/preprocessing.md); the first `sample_count` samples (<= 0: all), the last `holdout`
  // of those never calibrated on (< 0: a tenth).
  std::string samples;
  std::string preprocess;
  int sample_count = 0;
  int holdout = -1;

  // Statistics files read and merged instead of calibrating (the first one's key must match
  // when `samples` is given); a shard calibrated alone (its statistics are the result); where
  // to write the statistics; whether to compile the int8 model at all (false: statistics only).
  std::vector<std::string> stats_files;
  std::optional<Shard> shard;
  std::string stats_out;
  bool compile = true;

  // The accuracy budget (top1: over the images of `budget_images`, preprocessed as the samples),
  // whether its steps try int16 before float, and whether to measure the accuracy report.
  BudgetSpec budget;
  std::string budget_images;
  bool budget_int16_first = true;
  bool accuracy_report = false;

  int threads = 1;
  bool progress = true;  // progress bars on stderr
  QuantizeHooks hooks;
  QuantizeFieldNames names;
};

struct QuantizeResult {
  std::string model_sha256;  // of the ONNX file: the statistics key has it
  std::shared_ptr<const calib::CalibrationStats> stats;
  // The rest is set when the int8 model was compiled (not for a shard or statistics only).
  std::optional<CompiledModel> model;
  // As compiled: the range (the auto search's choice), plus what the budget kept in float or
  // made int16.
  QuantizeConfig config;
  std::optional<RangeChoice> range_choice;  // when the auto search ran
  std::optional<BudgetResult> budget;       // when a budget ran (its model moved to `model`)
  std::optional<AccuracyReport> report;     // on the held-back samples, when asked for
};

Expected<QuantizeResult> Quantize(const QuantizeRequest& request);

}  // namespace kiln::quant
