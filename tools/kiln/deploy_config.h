// The YAML deploy file of `kiln quantize --config FILE`: the model, its input shapes, the
// preprocessing, the calibration data and every quantization option in one reviewable file
// (docs/quantization.md shows one). Flags given on the command line override it; relative
// paths are relative to the file's folder.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/status.h"

namespace kiln::cli {

struct DeployConfig {
  std::optional<std::string> model, output, preprocess, calib, algo, act, weights, report,
      budget, sign_key, compress, stats, stats_out, budget_images;
  std::optional<int> calib_count, holdout, threads;
  std::optional<double> max_sqnr_drop;
  std::optional<bool> equalize, bias_correct;
  std::vector<std::string> keep_float;
  std::vector<std::string> int16;  // quantization.int16: nodes with int16 activations
  std::map<std::string, std::vector<int64_t>> input_shapes;
};

Expected<DeployConfig> ReadDeployConfig(const std::string& path);

}  // namespace kiln::cli
