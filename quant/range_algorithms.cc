// minmax, percentile, KL-divergence (entropy) and MSE range selection over a histogram.
#include "quant/range_algorithms.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

namespace kiln::quant {
namespace {

using calib::TensorStats;

// Non-empty bins as (centre, count), for the error sums.
struct Bin {
  double centre;
  double count;
};
std::vector<Bin> NonEmptyBins(const TensorStats& s) {
  std::vector<Bin> out;
  const double w = s.bin_width();
  for (int i = 0; i < TensorStats::kBins; ++i) {
    const uint64_t c = s.bins()[static_cast<size_t>(i)];
    if (c) {
      // Clamp the centre into [min, max]: the edge bins are only partly used.
      const double centre = std::clamp(s.bin_lower(i) + w / 2, static_cast<double>(s.min()),
                                       static_cast<double>(s.max()));
      out.push_back({centre, static_cast<double>(c)});
    }
  }
  return out;
}

// The value below which `fraction` of the data lies (linear within a bin).
double Quantile(const TensorStats& s, double fraction) {
  const double target = fraction * static_cast<double>(s.count());
  double cum = 0;
  const double w = s.bin_width();
  for (int i = 0; i < TensorStats::kBins; ++i) {
    const double c = static_cast<double>(s.bins()[static_cast<size_t>(i)]);
    if (c > 0 && cum + c >= target) {
      const double v = s.bin_lower(i) + w * std::clamp((target - cum) / c, 0.0, 1.0);
      return std::clamp(v, static_cast<double>(s.min()), static_cast<double>(s.max()));
    }
    cum += c;
  }
  return s.max();
}

// Histogram of |x|: bin j covers [j w, (j + 1) w).
std::vector<double> AbsHistogram(const TensorStats& s) {
  std::vector<double> h(TensorStats::kHalfBins, 0.0);
  for (int i = 0; i < TensorStats::kBins; ++i) {
    const double c = static_cast<double>(s.bins()[static_cast<size_t>(i)]);
    if (c == 0) continue;
    const int rel = i - TensorStats::kHalfBins;
    const int j = rel >= 0 ? rel : -rel - 1;
    h[static_cast<size_t>(std::min(j, TensorStats::kHalfBins - 1))] += c;
  }
  return h;
}

// TensorRT's entropy calibration on a histogram of |x| (bin width w): the threshold whose
// `levels`-level quantization of the clipped distribution has the least KL divergence from it.
double KlThreshold(std::vector<double> hist, double w, int levels) {
  // Work on at most 2,048 bins: merge pairs while the data reaches further.
  int used = static_cast<int>(hist.size());
  while (used > 0 && hist[static_cast<size_t>(used - 1)] == 0) --used;
  while (used > 2048) {
    std::vector<double> h((hist.size() + 1) / 2, 0.0);
    for (size_t i = 0; i < hist.size(); ++i) h[i / 2] += hist[i];
    hist = std::move(h);
    w *= 2;
    used = (used + 1) / 2;
  }
  if (used <= levels) return used * w;
  double best_kl = std::numeric_limits<double>::infinity();
  int best = used;
  std::vector<double> p, q;
  for (int i = levels; i <= used; ++i) {
    // Reference P: the first i bins, outliers folded into the last.
    p.assign(hist.begin(), hist.begin() + i);
    double outliers = 0;
    for (int k = i; k < used; ++k) outliers += hist[static_cast<size_t>(k)];
    p[static_cast<size_t>(i - 1)] += outliers;
    // Q: bin 0 as it is, bins [1, i) merged into `levels - 1` buckets, each bucket's mass
    // spread evenly over its non-empty bins. Bin 0 holds the exact zeros of ReLU outputs
    // (often half of a tensor), which every range represents exactly; merged into the first
    // bucket, that spike would be smeared over its neighbours and make every threshold but
    // the smallest look costly (mobilenetv2 with sym-i8 clipped its Relu6 outputs near 1.0
    // and kept 8 % top-1 agreement).
    q.assign(static_cast<size_t>(i), 0.0);
    q[0] = hist[0];
    for (int b = 0; b < levels - 1; ++b) {
      const int start = 1 + static_cast<int>(static_cast<int64_t>(b) * (i - 1) / (levels - 1));
      const int end = 1 + static_cast<int>(static_cast<int64_t>(b + 1) * (i - 1) / (levels - 1));
      double mass = 0;
      int nonzero = 0;
      for (int k = start; k < end; ++k) {
        mass += hist[static_cast<size_t>(k)];
        if (hist[static_cast<size_t>(k)] > 0) ++nonzero;
      }
      if (nonzero == 0) continue;
      for (int k = start; k < end; ++k) {
        if (hist[static_cast<size_t>(k)] > 0) q[static_cast<size_t>(k)] = mass / nonzero;
      }
    }
    double psum = 0, qsum = 0;
    for (int k = 0; k < i; ++k) {
      psum += p[static_cast<size_t>(k)];
      qsum += q[static_cast<size_t>(k)];
    }
    if (psum <= 0 || qsum <= 0) continue;
    double kl = 0;
    for (int k = 0; k < i; ++k) {
      const double pk = p[static_cast<size_t>(k)] / psum;
      if (pk <= 0) continue;
      const double qk = q[static_cast<size_t>(k)] / qsum;
      kl += qk > 0 ? pk * std::log(pk / qk) : pk * 30.0;  // empty Q bin: a large penalty
    }
    if (kl < best_kl) {
      best_kl = kl;
      best = i;
    }
  }
  return best * w;
}

// Prefix sums over the non-empty bins (sorted by centre) so that the expected squared error
// of any range is O(log n): clipped values cost their distance to the range, kept ones the
// rounding noise step^2 / 12.
class ErrorModel {
 public:
  explicit ErrorModel(const std::vector<Bin>& bins) : c_(bins.size()) {
    n_.assign(bins.size() + 1, 0);
    s1_.assign(bins.size() + 1, 0);
    s2_.assign(bins.size() + 1, 0);
    for (size_t i = 0; i < bins.size(); ++i) {
      c_[i] = bins[i].centre;
      n_[i + 1] = n_[i] + bins[i].count;
      s1_[i + 1] = s1_[i] + bins[i].count * bins[i].centre;
      s2_[i + 1] = s2_[i] + bins[i].count * bins[i].centre * bins[i].centre;
    }
  }
  double Error(double lo, double hi, int levels) const {
    const size_t a = static_cast<size_t>(std::lower_bound(c_.begin(), c_.end(), lo) - c_.begin());
    const size_t b = static_cast<size_t>(std::upper_bound(c_.begin(), c_.end(), hi) - c_.begin());
    // Below lo: sum n (lo - c)^2; above hi: sum n (c - hi)^2.
    const double below = n_[a] * lo * lo - 2 * lo * s1_[a] + s2_[a];
    const size_t e = c_.size();
    const double na = n_[e] - n_[b], s1a = s1_[e] - s1_[b], s2a = s2_[e] - s2_[b];
    const double above = s2a - 2 * hi * s1a + na * hi * hi;
    const double step = (hi - lo) / (levels - 1);
    return below + above + (n_[b] - n_[a]) * step * step / 12.0;
  }

 private:
  std::vector<double> c_, n_, s1_, s2_;
};

}  // namespace

Expected<RangeSpec> ParseRangeSpec(const std::string& text) {
  RangeSpec s;
  if (text == "minmax") return s;
  if (text == "kl" || text == "entropy") {
    s.algo = RangeAlgo::kKl;
    return s;
  }
  if (text == "mse") {
    s.algo = RangeAlgo::kMse;
    return s;
  }
  if (text.rfind("percentile", 0) == 0) {
    s.algo = RangeAlgo::kPercentile;
    if (text.size() > 10) {
      if (text[10] != ':')
        return InvalidArgument("range algorithm '" + text + "': expected percentile:P");
      char* end = nullptr;
      const std::string num = text.substr(11);
      s.percentile = std::strtod(num.c_str(), &end);
      if (num.empty() || *end != '\0' || !(s.percentile > 50.0) || !(s.percentile <= 100.0)) {
        return InvalidArgument("range algorithm '" + text + "': P must be a number in (50, 100]");
      }
    }
    return s;
  }
  return InvalidArgument("range algorithm '" + text +
                         "': expected minmax, percentile[:P], kl or mse");
}

std::string RangeSpecName(const RangeSpec& spec) {
  switch (spec.algo) {
    case RangeAlgo::kMinMax:
      return "minmax";
    case RangeAlgo::kKl:
      return "kl";
    case RangeAlgo::kMse:
      return "mse";
    case RangeAlgo::kPercentile: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "percentile:%g", spec.percentile);
      return buf;
    }
  }
  return "?";
}

Range ChooseRange(const calib::TensorStats& s, const RangeSpec& spec, ActMode mode) {
  if (s.count() == 0) return {0, 0};
  const double mn = s.min(), mx = s.max();
  const bool sym = IsSymmetric(mode);
  const double absmax = std::max(std::fabs(mn), std::fabs(mx));
  // int16: 65,535 levels leave no rounding error worth trading for clipped outliers, so every
  // algorithm keeps the whole observed range (TFLite's 16x8 mode does the same).
  if (mode == ActMode::kSymI16) return Range{-absmax, absmax};
  switch (spec.algo) {
    case RangeAlgo::kMinMax:
      return sym ? Range{-absmax, absmax} : Range{mn, mx};
    case RangeAlgo::kPercentile: {
      const double f = spec.percentile / 100.0;
      if (sym) {
        // The percentile of |x|: fold the histogram.
        const std::vector<double> h = AbsHistogram(s);
        const double target = f * static_cast<double>(s.count());
        double cum = 0, t = absmax;
        for (size_t j = 0; j < h.size(); ++j) {
          if (h[j] > 0 && cum + h[j] >= target) {
            t = (static_cast<double>(j) + std::clamp((target - cum) / h[j], 0.0, 1.0)) *
                s.bin_width();
            break;
          }
          cum += h[j];
        }
        t = std::min(t, absmax);
        return {-t, t};
      }
      const double lo = mn < 0 ? Quantile(s, 1.0 - f) : mn;
      const double hi = mx > 0 ? Quantile(s, f) : mx;
      return {std::min(lo, 0.0), std::max(hi, 0.0)};
    }
    case RangeAlgo::kKl: {
      const bool one_sided = mn >= 0 || mx <= 0;
      const int levels = sym || !one_sided ? 128 : 256;
      const double t = std::min(KlThreshold(AbsHistogram(s), s.bin_width(), levels), absmax);
      if (sym) return {-t, t};
      return {std::max(mn, -t), std::min(mx, t)};
    }
    case RangeAlgo::kMse: {
      // The least expected squared error over a grid of clipping points: one threshold for
      // symmetric ranges, each end independently for asymmetric ones.
      const ErrorModel model(NonEmptyBins(s));
      constexpr int kSteps = 512;
      double best_err = std::numeric_limits<double>::infinity();
      Range best{mn, mx};
      if (sym) {
        for (int j = kSteps; j >= 1; --j) {
          const double t = absmax * j / kSteps;
          const double err = model.Error(-t, t, 255);
          if (err < best_err) {
            best_err = err;
            best = {-t, t};
          }
        }
        return best;
      }
      const double lo0 = std::min(mn, 0.0), hi0 = std::max(mx, 0.0);
      const int lo_steps = lo0 < 0 ? kSteps : 1, hi_steps = hi0 > 0 ? kSteps : 1;
      for (int i = lo_steps; i >= 1; --i) {
        const double lo = lo0 * i / lo_steps;
        for (int j = hi_steps; j >= 1; --j) {
          const double hi = hi0 * j / hi_steps;
          if (hi - lo <= 0) continue;
          const double err = model.Error(lo, hi, 256);
          if (err < best_err) {
            best_err = err;
            best = {lo, hi};
          }
        }
      }
      return best;
    }
  }
  return {mn, mx};
}

}  // namespace kiln::quant
