// Quantization arithmetic: parameters, weights, biases, multipliers and clamps.
#include "quant/quant_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace kiln::quant {

DType ActDType(ActMode mode) {
  switch (mode) {
    case ActMode::kAsymU8:
      return DType::kU8;
    case ActMode::kSymI8:
      return DType::kI8;
    case ActMode::kSymI16:
      return DType::kI16;
  }
  return DType::kU8;
}

QuantParams ChooseActivationParams(double lo, double hi, ActMode mode) {
  if (!std::isfinite(lo)) lo = 0;
  if (!std::isfinite(hi)) hi = 0;
  lo = std::min(lo, 0.0);
  hi = std::max(hi, 0.0);
  QuantParams q;
  if (IsSymmetric(mode)) {
    double m = std::max(-lo, hi);
    m = std::max(m, kMinRange / 2);
    q.scales = {static_cast<float>(m / SymmetricMax(mode))};
    q.zero_points = {0};
    return q;
  }
  if (hi - lo < kMinRange) {
    // Grow the range around its centre of mass: keep the sign split of the original.
    const double grow = kMinRange - (hi - lo);
    if (lo == 0) {
      hi += grow;
    } else if (hi == 0) {
      lo -= grow;
    } else {
      lo -= grow / 2;
      hi += grow / 2;
    }
  }
  const double scale = (hi - lo) / 255.0;
  const float s = static_cast<float>(scale);
  // Zero point: the code of real 0, so that 0 (padding, Relu) is exact.
  const double zp = std::clamp(std::round(-lo / static_cast<double>(s)), 0.0, 255.0);
  q.scales = {s};
  q.zero_points = {static_cast<int64_t>(zp)};
  return q;
}

Expected<Requant> QuantizeMultiplier(double m) {
  if (!(m >= 0) || !std::isfinite(m)) {
    return InvalidArgument("requantization multiplier " + std::to_string(m) +
                           " is not a finite non-negative number");
  }
  if (m == 0) return Requant{0, 1};
  int exp = 0;
  const double frac = std::frexp(m, &exp);  // m = frac * 2^exp, frac in [0.5, 1)
  int64_t q = std::llround(frac * static_cast<double>(int64_t{1} << 31));
  if (q == (int64_t{1} << 31)) {  // rounding reached 1.0
    q /= 2;
    ++exp;
  }
  int shift = 31 - exp;
  if (shift < 1) {
    return InvalidArgument("requantization multiplier " + std::to_string(m) +
                           " is too large (>= 2^30)");
  }
  if (shift > 62) {
    // Too small for the normal form: keep the largest shift and drop low multiplier bits.
    const int drop = shift - 62;
    q = drop >= 63 ? 0 : (q + (int64_t{1} << (drop - 1))) >> drop;
    shift = 62;
  }
  return Requant{static_cast<int32_t>(q), shift};
}

QuantizedWeights QuantizeWeightsSymmetric(const std::vector<float>& w, int64_t channels,
                                          int64_t inner_stride, int64_t outer_count,
                                          const std::vector<float>& min_scales, int bits) {
  // Element index = (outer * channels + c) * inner_stride + i.
  const double qmax = bits == 16 ? 32767.0 : 127.0;
  QuantizedWeights out;
  if (bits == 16) {
    out.values16.resize(w.size());
  } else {
    out.values.resize(w.size());
  }
  out.scales.assign(static_cast<size_t>(channels), 0.f);
  std::vector<float> max_abs(static_cast<size_t>(channels), 0.f);
  for (int64_t o = 0; o < outer_count; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      for (int64_t i = 0; i < inner_stride; ++i) {
        const float v = std::fabs(w[static_cast<size_t>((o * channels + c) * inner_stride + i)]);
        if (std::isfinite(v))
          max_abs[static_cast<size_t>(c)] = std::max(max_abs[static_cast<size_t>(c)], v);
      }
    }
  }
  for (int64_t c = 0; c < channels; ++c) {
    const float m = max_abs[static_cast<size_t>(c)];
    // (8-bit: the float division the int8 files were always made with.)
    float scale = m > 0 ? (bits == 16 ? static_cast<float>(m / 32767.0) : m / 127.f) : 1.f;
    if (static_cast<size_t>(c) < min_scales.size()) {
      scale = std::max(scale, min_scales[static_cast<size_t>(c)]);
    }
    out.scales[static_cast<size_t>(c)] = scale;
  }
  for (int64_t o = 0; o < outer_count; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      const double s = out.scales[static_cast<size_t>(c)];
      for (int64_t i = 0; i < inner_stride; ++i) {
        const size_t k = static_cast<size_t>((o * channels + c) * inner_stride + i);
        const double q = std::clamp(
            std::isfinite(std::round(w[k] / s)) ? std::round(w[k] / s) : 0.0, -qmax, qmax);
        if (bits == 16) {
          out.values16[k] = static_cast<int16_t>(q);
        } else {
          out.values[k] = static_cast<int8_t>(q);
        }
      }
    }
  }
  return out;
}

QuantizedWeights QuantizeWeightsAxis0(const std::vector<float>& w, int64_t channels,
                                      bool per_channel, const std::vector<float>& min_scales,
                                      int bits) {
  if (!per_channel || channels <= 0) {
    return QuantizeWeightsSymmetric(w, 1, static_cast<int64_t>(w.size()), 1, min_scales, bits);
  }
  return QuantizeWeightsSymmetric(w, channels, static_cast<int64_t>(w.size()) / channels, 1,
                                  min_scales, bits);
}

std::vector<float> MinWeightScales(const std::vector<float>& bias, float input_scale,
                                   bool per_channel) {
  constexpr double kLimit = 1 << 30;
  std::vector<float> out(bias.size(), 0.f);
  float all = 0.f;
  for (size_t c = 0; c < bias.size(); ++c) {
    const double need = std::fabs(static_cast<double>(bias[c])) / (input_scale * kLimit);
    out[c] = std::isfinite(need) ? static_cast<float>(need * (1 + 1e-6)) : 0.f;
    all = std::max(all, out[c]);
  }
  if (!per_channel) out.assign(1, all);
  return out;
}

std::vector<int32_t> QuantizeBias(const std::vector<float>& b, float input_scale,
                                  const std::vector<float>& weight_scales) {
  std::vector<int32_t> out(b.size());
  for (size_t c = 0; c < b.size(); ++c) {
    const double ws = weight_scales.size() == 1 ? weight_scales[0] : weight_scales[c];
    const double q =
        std::round(static_cast<double>(b[c]) / (static_cast<double>(input_scale) * ws));
    out[c] = static_cast<int32_t>(std::clamp(
        std::isfinite(q) ? q : 0.0, static_cast<double>(std::numeric_limits<int32_t>::min()),
        static_cast<double>(std::numeric_limits<int32_t>::max())));
  }
  return out;
}

int64_t QuantizeValue(double v, float scale, int64_t zero_point, DType t) {
  const double q = std::round(v / static_cast<double>(scale)) + static_cast<double>(zero_point);
  if (std::isnan(q)) return zero_point;
  return static_cast<int64_t>(
      std::clamp(q, static_cast<double>(QuantCodeMin(t)), static_cast<double>(QuantCodeMax(t))));
}

Expected<QClamp> ActivationClamp(const ActivationParams& act, const QuantParams& q, DType t) {
  QClamp c{QuantCodeMin(t), QuantCodeMax(t)};
  const int64_t zp = q.zero_points.empty() ? 0 : q.zero_points[0];
  const float s = q.scales.empty() ? 1.f : q.scales[0];
  switch (act.kind) {
    case Activation::kNone:
      return c;
    case Activation::kRelu:
      c.qmin = std::max(c.qmin, zp);
      return c;
    case Activation::kClip: {
      // Quantizing is monotone, so Q(clip(x, a, b)) = clamp(Q(x), Q(a), Q(b)) exactly.
      if (std::isfinite(act.alpha)) {
        c.qmin = std::max(c.qmin, QuantizeValue(act.alpha, s, zp, t));
      }
      if (std::isfinite(act.beta)) {
        c.qmax = std::min(c.qmax, QuantizeValue(act.beta, s, zp, t));
      }
      if (c.qmin > c.qmax) c.qmin = c.qmax;  // ONNX: min > max gives max everywhere
      return c;
    }
    default:
      return InvalidArgument("activation " + std::string(ActivationName(act.kind)) +
                             " cannot be folded into an output range");
  }
}

}  // namespace kiln::quant
