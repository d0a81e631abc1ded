// What `kiln quantize` asks of the compiler's quantize pass: the calibration statistics, the
// range algorithm, the activation and weight encodings, the accuracy tools' switches and the
// nodes to keep in float. Carried in CompileOptions::quantize.
#pragma once

#include <memory>
#include <set>
#include <string>

#include "calibration/stats_file.h"
#include "quantizer/quant_math.h"
#include "quantizer/range_algorithms.h"

namespace kiln::quant {

struct QuantizeConfig {
  // Statistics of the float graph's values (by value name); null while calibrating.
  std::shared_ptr<const calib::CalibrationStats> stats;
  RangeSpec range;
  ActMode act = ActMode::kAsymU8;
  bool per_channel_weights = true;  // --weights per-channel (default) | per-tensor
  bool bias_correct = false;        // --bias-correct: empirical bias correction
  // Nodes kept in float, by source (ONNX) node name: --keep-float and the accuracy budget.
  std::set<std::string> keep_float;
  // Nodes whose activations (the data they read and write) are int16, by source (ONNX) node
  // name: --int16 and the accuracy budget. Their weights stay int8.
  std::set<std::string> int16_nodes;
};

}  // namespace kiln::quant
