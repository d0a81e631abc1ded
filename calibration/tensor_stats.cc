// TensorStats: streaming min/max, power-of-two-range histogram and channel means, and their
// exact merge.
#include "calibration/tensor_stats.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln::calib {

double TensorStats::bin_width() const { return std::ldexp(1.0, exponent_ - 12); }

void TensorStats::GrowTo(int exponent) {
  if (exponent <= exponent_) return;
  if (!bins_.empty()) {
    const int k = exponent - exponent_;
    std::vector<uint64_t> grown(kBins, 0);
    for (int i = 0; i < kBins; ++i) {
      if (bins_[static_cast<size_t>(i)] == 0) continue;
      // Relative index r = i - kHalfBins maps to floor(r / 2^k) (an arithmetic shift).
      const int64_t r = static_cast<int64_t>(i) - kHalfBins;
      const int64_t nr = k >= 40 ? (r < 0 ? -1 : 0) : (r >> k);
      grown[static_cast<size_t>(nr + kHalfBins)] += bins_[static_cast<size_t>(i)];
    }
    bins_ = std::move(grown);
  }
  exponent_ = exponent;
}

void TensorStats::AddSample(const float* x, int64_t n, int64_t channels, int64_t inner) {
  ++samples_;
  float lo = std::numeric_limits<float>::infinity(), hi = -lo;
  float absmax = 0.f;
  int64_t finite = 0;
  for (int64_t i = 0; i < n; ++i) {
    const float v = x[i];
    if (!std::isfinite(v)) continue;
    ++finite;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    absmax = std::max(absmax, std::fabs(v));
  }
  non_finite_ += n - finite;
  if (finite > 0) {
    if (count_ == 0) {
      min_ = lo;
      max_ = hi;
    } else {
      min_ = std::min(min_, lo);
      max_ = std::max(max_, hi);
    }
    count_ += finite;
    // The smallest power of two strictly above |x|max.
    int e = kMinExponent;
    if (absmax > 0.f) {
      int fe = 0;
      (void)std::frexp(absmax, &fe);  // absmax = f * 2^fe, f in [0.5, 1): 2^fe > absmax
      e = std::max(fe, kMinExponent);
    }
    if (bins_.empty()) bins_.assign(kBins, 0);
    GrowTo(e);
    const float scale = std::ldexp(1.0f, 12 - exponent_);  // 4096 / R: exact products
    for (int64_t i = 0; i < n; ++i) {
      const float v = x[i];
      if (!std::isfinite(v)) continue;
      int idx = static_cast<int>(std::floor(v * scale)) + kHalfBins;
      idx = std::clamp(idx, 0, kBins - 1);
      ++bins_[static_cast<size_t>(idx)];
    }
  }
  if (channels > 0 && n % (channels * inner) == 0) {
    if (channel_sums_.empty()) channel_sums_.assign(static_cast<size_t>(channels), 0);
    if (static_cast<int64_t>(channel_sums_.size()) != channels) return;
    const int64_t outer = n / (channels * inner);
    for (int64_t c = 0; c < channels; ++c) {
      double sum = 0;
      int64_t m = 0;
      for (int64_t o = 0; o < outer; ++o) {
        const float* p = x + (o * channels + c) * inner;
        for (int64_t i = 0; i < inner; ++i) {
          if (std::isfinite(p[i])) {
            sum += p[i];
            ++m;
          }
        }
      }
      const double mean = m ? sum / static_cast<double>(m) : 0.0;
      const double fixed = std::ldexp(mean, kMeanFractionBits);
      constexpr double kLimit = 9.0e15;  // keep the fixed-point sum far from int64 overflow
      channel_sums_[static_cast<size_t>(c)] += std::llround(std::clamp(fixed, -kLimit, kLimit));
    }
  }
}

Status TensorStats::Merge(const TensorStats& other) {
  if (!channel_sums_.empty() && !other.channel_sums_.empty() &&
      channel_sums_.size() != other.channel_sums_.size()) {
    return InvalidArgument("channel counts differ (" + std::to_string(channel_sums_.size()) +
                           " vs " + std::to_string(other.channel_sums_.size()) + ")");
  }
  if (other.count_ > 0) {
    if (count_ == 0) {
      min_ = other.min_;
      max_ = other.max_;
    } else {
      min_ = std::min(min_, other.min_);
      max_ = std::max(max_, other.max_);
    }
  }
  count_ += other.count_;
  non_finite_ += other.non_finite_;
  samples_ += other.samples_;
  if (!other.bins_.empty()) {
    if (bins_.empty()) {
      bins_ = other.bins_;
      exponent_ = other.exponent_;
    } else {
      TensorStats o = other;
      const int e = std::max(exponent_, o.exponent_);
      GrowTo(e);
      o.GrowTo(e);
      for (size_t i = 0; i < bins_.size(); ++i) bins_[i] += o.bins_[i];
    }
  }
  if (channel_sums_.empty()) {
    channel_sums_ = other.channel_sums_;
  } else if (!other.channel_sums_.empty()) {
    for (size_t c = 0; c < channel_sums_.size(); ++c) channel_sums_[c] += other.channel_sums_[c];
  }
  return Status::Ok();
}

std::vector<double> TensorStats::ChannelMeans() const {
  std::vector<double> means(channel_sums_.size(), 0.0);
  if (samples_ == 0) return means;
  for (size_t c = 0; c < means.size(); ++c) {
    means[c] = std::ldexp(static_cast<double>(channel_sums_[c]), -kMeanFractionBits) /
               static_cast<double>(samples_);
  }
  return means;
}

TensorStats::Raw TensorStats::ToRaw() const {
  return Raw{min_, max_, count_, non_finite_, samples_, exponent_, bins_, channel_sums_};
}

Expected<TensorStats> TensorStats::FromRaw(Raw raw) {
  if (!raw.bins.empty() && raw.bins.size() != static_cast<size_t>(kBins)) {
    return InvalidArgument("histogram has " + std::to_string(raw.bins.size()) + " bins, expected " +
                           std::to_string(kBins));
  }
  if (raw.exponent < kMinExponent || raw.exponent > 200 || raw.count < 0 || raw.samples < 0 ||
      raw.non_finite < 0) {
    return InvalidArgument("statistics header out of range");
  }
  uint64_t total = 0;
  for (uint64_t b : raw.bins) total += b;
  if (total != static_cast<uint64_t>(raw.count)) {
    return InvalidArgument("histogram counts do not add up to the value count");
  }
  TensorStats s;
  s.min_ = raw.min;
  s.max_ = raw.max;
  s.count_ = raw.count;
  s.non_finite_ = raw.non_finite;
  s.samples_ = raw.samples;
  s.exponent_ = raw.exponent;
  s.bins_ = std::move(raw.bins);
  s.channel_sums_ = std::move(raw.channel_sums);
  return s;
}

}  // namespace kiln::calib
