// What `kiln quantize` asks of the compiler's quantize pass: the calibration statistics, the
// range algorithm, the activation and weight encodings, the accuracy tools' switches and the
// nodes to keep in float. Carried in CompileOptions::quantize.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <string_view>

#include "calibration/stats_file.h"
#include "quant/quant_math.h"
#include "quant/range_algorithms.h"

namespace kiln::quant {

// --int16 @depthwise: every depthwise convolution (a few taps per output channel make their
// int8 weights the first to limit accuracy; their weights are small, so int16 costs little).
inline constexpr std::string_view kInt16Depthwise = "@depthwise";

struct QuantizeConfig {
  // Statistics of the float graph's values (by value name); null while calibrating.
  std::shared_ptr<const calib::CalibrationStats> stats;
  RangeSpec range;
  ActMode act = ActMode::kAsymU8;
  bool per_channel_weights = true;  // --weights per-channel (default) | per-tensor
  bool bias_correct = false;        // --bias-correct: empirical bias correction
  // Nodes kept in float, by source (ONNX) node name: --keep-float and the accuracy budget.
  std::set<std::string> keep_float;
  // Nodes made int16, by source (ONNX) node name: --int16 and the accuracy budget. The
  // activations they read and write are int16, and so are their weights (Conv/Gemm). The name
  // kInt16Depthwise stands for every depthwise convolution.
  std::set<std::string> int16_nodes;
};

}  // namespace kiln::quant
