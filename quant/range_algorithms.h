// Range algorithms: the real range [lo, hi] an activation is quantized over, chosen from its
// calibration statistics (calibration/tensor_stats.h). minmax keeps every value; percentile,
// kl (TensorRT's entropy calibration) and mse (least expected squared error) clip outliers.
// All are deterministic functions of the statistics.
#pragma once

#include <string>

#include "calibration/tensor_stats.h"
#include "quant/quant_math.h"

namespace kiln::quant {

enum class RangeAlgo { kMinMax, kPercentile, kKl, kMse };

struct RangeSpec {
  RangeAlgo algo = RangeAlgo::kMinMax;
  double percentile = 99.99;  // percentile:P
};

// "minmax", "percentile", "percentile:99.9", "kl", "mse".
Expected<RangeSpec> ParseRangeSpec(const std::string& text);
std::string RangeSpecName(const RangeSpec& spec);

struct Range {
  double lo = 0, hi = 0;
};
// The range for `stats` quantized in `mode` (asymmetric u8: the two ends may differ;
// symmetric i8: [-T, T]). Empty statistics give [0, 0].
Range ChooseRange(const calib::TensorStats& stats, const RangeSpec& spec, ActMode mode);

}  // namespace kiln::quant
