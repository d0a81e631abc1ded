// Calibration statistics: exact, order-free merges (shards == one pass, byte for byte), the
// file format's round trip and its refusal of damaged files, and the range algorithms.
#include "calibration/tensor_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "calibration/stats_file.h"
#include "quant/range_algorithms.h"

namespace kiln::calib {
namespace {

std::vector<float> Samples(std::mt19937& rng, size_t n, float scale) {
  std::normal_distribution<float> d(0.f, scale);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

// Statistics of `batches` (each a sample [1, 4, n/4]) over the given order of batch indices.
CalibrationStats StatsOf(const std::vector<std::vector<float>>& batches,
                         const std::vector<size_t>& which) {
  CalibrationStats s;
  s.key = "test";
  for (size_t b : which) {
    s.tensors["x"].AddSample(batches[b].data(), static_cast<int64_t>(batches[b].size()), 4,
                             static_cast<int64_t>(batches[b].size() / 4));
    ++s.samples;
  }
  return s;
}

TEST(TensorStats, ShardMergeIsByteIdenticalToOnePass) {
  std::mt19937 rng(3);
  std::vector<std::vector<float>> batches;
  // Growing ranges: later batches force the histogram range to double several times.
  for (int b = 0; b < 12; ++b)
    batches.push_back(Samples(rng, 400, 0.01f * static_cast<float>(1 << b)));
  std::vector<size_t> all;
  for (size_t b = 0; b < batches.size(); ++b) all.push_back(b);
  const std::vector<uint8_t> one = EncodeStats(StatsOf(batches, all));
  for (int shards : {2, 3, 4, 5}) {
    CalibrationStats merged;
    for (int i = shards - 1; i >= 0; --i) {  // merged in reverse on purpose
      std::vector<size_t> mine;
      for (size_t b = static_cast<size_t>(i); b < batches.size(); b += static_cast<size_t>(shards))
        mine.push_back(b);
      CalibrationStats part = StatsOf(batches, mine);
      if (i == shards - 1) {
        merged = std::move(part);
      } else {
        ASSERT_TRUE(merged.Merge(part).ok());
      }
    }
    EXPECT_EQ(EncodeStats(merged), one) << shards << " shards";
  }
  // Another order of the same samples gives the same bytes too.
  std::vector<size_t> reversed(all.rbegin(), all.rend());
  EXPECT_EQ(EncodeStats(StatsOf(batches, reversed)), one);
}

TEST(TensorStats, HistogramMatchesDirectBinningAtFinalRange) {
  std::mt19937 rng(5);
  TensorStats s;
  std::vector<float> all;
  for (int b = 0; b < 6; ++b) {
    auto v = Samples(rng, 300, 0.5f * static_cast<float>(b + 1));
    s.AddSample(v.data(), static_cast<int64_t>(v.size()));
    all.insert(all.end(), v.begin(), v.end());
  }
  std::vector<uint64_t> direct(TensorStats::kBins, 0);
  for (float x : all) {
    const double idx = std::floor(x / s.bin_width()) + TensorStats::kHalfBins;
    ++direct[static_cast<size_t>(idx)];
  }
  EXPECT_EQ(s.bins(), direct);
  float mx = 0;
  for (float x : all) mx = std::max(mx, std::fabs(x));
  EXPECT_GT(std::ldexp(1.0, s.exponent()), mx);
  EXPECT_LE(std::ldexp(1.0, s.exponent() - 1), mx);
}

TEST(TensorStats, ChannelMeansAndNonFinite) {
  TensorStats s;
  const float nan = std::nanf("");
  // [1, 2, 3]: channel 0 = {1, 2, nan}, channel 1 = {10, 20, 30}.
  const std::vector<float> a = {1, 2, nan, 10, 20, 30};
  s.AddSample(a.data(), 6, 2, 3);
  const std::vector<float> b = {3, 3, 3, 0, 0, 0};
  s.AddSample(b.data(), 6, 2, 3);
  const auto means = s.ChannelMeans();
  ASSERT_EQ(means.size(), 2u);
  EXPECT_NEAR(means[0], (1.5 + 3) / 2, 1e-6);
  EXPECT_NEAR(means[1], (20 + 0) / 2, 1e-6);
  EXPECT_EQ(s.non_finite(), 1);
  EXPECT_EQ(s.count(), 11);
  EXPECT_EQ(s.min(), 0.f);
  EXPECT_EQ(s.max(), 30.f);
}

TEST(StatsFile, RoundTripsAndRefusesDamage) {
  std::mt19937 rng(9);
  CalibrationStats s;
  s.key = "model=abc";
  s.samples = 2;
  for (const char* name : {"a", "b/c"}) {
    for (int i = 0; i < 2; ++i) {
      auto v = Samples(rng, 64, 2.f);
      s.tensors[name].AddSample(v.data(), 64, 4, 16);
    }
  }
  const std::vector<uint8_t> bytes = EncodeStats(s);
  auto back = DecodeStats(bytes.data(), bytes.size());
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(EncodeStats(*back), bytes);
  for (size_t cut = 0; cut < bytes.size(); cut += 7) {
    EXPECT_FALSE(DecodeStats(bytes.data(), cut).ok()) << "truncated at " << cut;
  }
  std::mt19937 flip(1);
  for (int t = 0; t < 300; ++t) {
    std::vector<uint8_t> bad = bytes;
    bad[flip() % bad.size()] ^= static_cast<uint8_t>(1 + flip() % 255);
    auto r = DecodeStats(bad.data(), bad.size());  // must not crash; may still decode
    (void)r;
  }
  CalibrationStats other = s;
  other.key = "model=def";
  EXPECT_FALSE(s.Merge(other).ok());
}

// Relu6 outputs: half exact zeros, most of the rest small (exponential, mean 0.7), one in
// twenty clamped at 6. KL should keep the clamped values; with the zero spike merged into Q's
// first bucket it clipped far below them (mobilenetv2 with sym-i8: its Relu6 outputs clipped
// near 1.0, 8 % top-1 agreement).
TEST(RangeAlgorithms, KlIgnoresTheZeroSpike) {
  std::mt19937 rng(5);
  std::exponential_distribution<float> e(1.f / 0.7f);
  std::vector<float> v(40000);
  for (size_t i = 0; i < v.size(); ++i) {
    v[i] = i % 2 == 0 ? 0.f : (i % 20 == 1 ? 6.f : std::min(6.f, e(rng)));
  }
  TensorStats s;
  s.AddSample(v.data(), static_cast<int64_t>(v.size()));
  for (quant::ActMode m : {quant::ActMode::kSymI8, quant::ActMode::kAsymU8}) {
    const auto r = quant::ChooseRange(s, *quant::ParseRangeSpec("kl"), m);
    EXPECT_GT(r.hi, 5.0) << static_cast<int>(m);
    EXPECT_LE(r.hi, 6.0) << static_cast<int>(m);
  }
}

TEST(RangeAlgorithms, ClipOutliersAndRespectModes) {
  std::mt19937 rng(11);
  TensorStats s;
  // Post-Relu-like data: mostly small, a few large outliers.
  std::exponential_distribution<float> e(1.f);
  std::vector<float> v(20000);
  for (float& x : v) x = e(rng);
  v[0] = 60.f;
  s.AddSample(v.data(), static_cast<int64_t>(v.size()));
  using quant::ActMode;
  auto range = [&](const char* algo, ActMode m) {
    auto spec = quant::ParseRangeSpec(algo);
    EXPECT_TRUE(spec.ok());
    return quant::ChooseRange(s, *spec, m);
  };
  const auto mm = range("minmax", ActMode::kAsymU8);
  EXPECT_EQ(mm.lo, s.min());
  EXPECT_EQ(mm.hi, 60.0);
  for (const char* algo : {"percentile:99.9", "kl"}) {
    const auto r = range(algo, ActMode::kAsymU8);
    EXPECT_GE(r.lo, 0.0) << algo;
    EXPECT_GT(r.hi, 3.0) << algo;   // keeps the bulk
    EXPECT_LT(r.hi, 30.0) << algo;  // drops the outlier
    const auto sym = range(algo, ActMode::kSymI8);
    EXPECT_EQ(sym.lo, -sym.hi) << algo;
  }
  // MSE: the chosen range's actual quantization error is no worse than minmax's or a
  // percentile's, on data with a heavy tail (log-normal).
  TensorStats tail;
  std::lognormal_distribution<float> ln(0.f, 1.5f);
  for (float& x : v) x = ln(rng);
  tail.AddSample(v.data(), static_cast<int64_t>(v.size()));
  auto error_of = [&](const char* algo) {
    const auto r = quant::ChooseRange(tail, *quant::ParseRangeSpec(algo), ActMode::kAsymU8);
    const QuantParams q = quant::ChooseActivationParams(r.lo, r.hi, ActMode::kAsymU8);
    double err = 0;
    for (float x : v) {
      const int64_t c = quant::QuantizeValue(x, q.scales[0], q.zero_points[0], DType::kU8);
      const double d = quant::Dequantize(c, q.scales[0], q.zero_points[0]) - x;
      err += d * d;
    }
    return err;
  };
  const double mse_err = error_of("mse");
  EXPECT_LE(mse_err, error_of("minmax") * 1.02);
  EXPECT_LE(mse_err, error_of("percentile:99") * 1.02);
  EXPECT_LE(mse_err, error_of("percentile:99.9") * 1.02);
  auto mse_sym = quant::ChooseRange(tail, *quant::ParseRangeSpec("mse"), ActMode::kSymI8);
  EXPECT_EQ(mse_sym.lo, -mse_sym.hi);
  EXPECT_FALSE(quant::ParseRangeSpec("percentile:20").ok());
  EXPECT_FALSE(quant::ParseRangeSpec("bogus").ok());
  EXPECT_NEAR(quant::ParseRangeSpec("percentile:99.5")->percentile, 99.5, 1e-12);
}

}  // namespace
}  // namespace kiln::calib
