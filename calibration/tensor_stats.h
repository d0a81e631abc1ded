// Statistics of one tensor over a calibration set: min/max, a histogram of 8,192 bins, and
// per-channel means. Everything is kept in a form whose merge is exact and order-free, so
// statistics from shards of the calibration set combine bit-identically to one pass:
//   - the histogram covers [-R, R) with R a power of two, bin width R/4096; when data
//     exceeds R, R doubles and adjacent bin pairs merge, which equals binning at the new R
//     (scaling by a power of two is exact in floating point, and floor(floor(a)/2) =
//     floor(a/2)), so the histogram depends only on the data and the final R;
//   - per-channel means are per-sample means rounded to fixed point (2^-24) and summed as
//     integers.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/status.h"

namespace kiln::calib {

class TensorStats {
 public:
  static constexpr int kHalfBins = 4096;
  static constexpr int kBins = 2 * kHalfBins;
  static constexpr int kMinExponent = -30;  // smallest R = 2^-30
  static constexpr int kMeanFractionBits = 24;

  // Adds one sample's values; `channels` > 0 also accumulates the mean of each channel, the
  // values being laid out [outer, channels, inner] (channel = axis 1 of an NCHW tensor).
  void AddSample(const float* x, int64_t n, int64_t channels = 0, int64_t inner = 1);
  // Folds `other` in; both must describe the same tensor (channel counts agree).
  Status Merge(const TensorStats& other);

  int64_t count() const { return count_; }            // finite values seen
  int64_t non_finite() const { return non_finite_; }  // NaN/inf values (ignored)
  int64_t samples() const { return samples_; }
  float min() const { return min_; }
  float max() const { return max_; }
  int exponent() const { return exponent_; }  // R = 2^exponent
  double bin_width() const;
  // Bin i covers [(i - kHalfBins) * w, (i - kHalfBins + 1) * w).
  const std::vector<uint64_t>& bins() const { return bins_; }
  double bin_lower(int i) const { return (i - kHalfBins) * bin_width(); }
  // Mean of each channel over the samples (empty when not collected).
  std::vector<double> ChannelMeans() const;
  int64_t channels() const { return static_cast<int64_t>(channel_sums_.size()); }

  // Serialisation helpers (calibration/stats_file.cc).
  struct Raw {
    float min, max;
    int64_t count, non_finite, samples;
    int32_t exponent;
    std::vector<uint64_t> bins;
    std::vector<int64_t> channel_sums;
  };
  Raw ToRaw() const;
  static Expected<TensorStats> FromRaw(Raw raw);

 private:
  void GrowTo(int exponent);

  int64_t count_ = 0, non_finite_ = 0, samples_ = 0;
  float min_ = 0, max_ = 0;
  int exponent_ = kMinExponent;
  std::vector<uint64_t> bins_;           // empty until the first finite value
  std::vector<int64_t> channel_sums_;    // fixed-point sums of per-sample channel means
};

}  // namespace kiln::calib
