// Sample split and statistics key.
#include "quantizer/calibration_set.h"

#include <algorithm>

#include "serializer/signing.h"

namespace kiln::quant {
namespace {

std::string Hex(const signing::Sha256Digest& d) {
  static const char* k = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s += k[b >> 4];
    s += k[b & 15];
  }
  return s;
}

}  // namespace

std::vector<calib::SampleInput> SampleInputsOf(const Graph& g) {
  std::vector<calib::SampleInput> inputs;
  for (ValueId id : g.inputs()) {
    const Value& v = g.value(id);
    inputs.push_back({v.name, v.dtype, v.shape});
  }
  return inputs;
}

Expected<CalibrationSet> SplitSamples(std::unique_ptr<calib::SampleSource> source, int count,
                                      int holdout, const std::string& holdout_name) {
  CalibrationSet set;
  size_t n = source->size();
  if (count > 0) n = std::min(n, static_cast<size_t>(count));
  const size_t hold = holdout >= 0 ? static_cast<size_t>(holdout) : n / 10;
  if (hold >= n) return InvalidArgument(holdout_name + " leaves no calibration samples");
  for (size_t i = 0; i < n - hold; ++i) set.calibration.push_back(i);
  for (size_t i = n - hold; i < n; ++i) set.held_back.push_back(i);
  set.source = std::move(source);
  return set;
}

std::string StatisticsKey(const StatisticsKeyParts& parts, const CalibrationSet& set) {
  std::string key = "model=" + parts.model_sha256 + " preprocess=" + parts.preprocess +
                    " equalize=" + (parts.equalize ? "1" : "0") +
                    " samples=" + std::to_string(set.calibration.size());
  for (const auto& [name, dims] : parts.input_shapes) {
    key += " input-shape=" + name + "=";
    for (size_t i = 0; i < dims.size(); ++i) {
      if (i) key += ',';
      key += std::to_string(dims[i]);
    }
  }
  if (set.source) {
    // The ids, not only their count: another selection of as many samples is other statistics.
    std::string ids;
    for (size_t i : set.calibration) ids += set.source->id(i) + "\n";
    key += " ids=" + Hex(signing::Sha256(ids.data(), ids.size())).substr(0, 16);
  }
  return key;
}

}  // namespace kiln::quant
