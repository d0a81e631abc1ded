// The scalar definition of the fused-epilogue activations (ir/activation.h), one place for
// every kernel (reference, SIMD, GPU host side) so they agree on the math.
#pragma once

#include <cmath>
#include <cstdint>

#include "ir/activation.h"

namespace kiln {

// Split by sign so exp() never overflows; the same formula as the reference Sigmoid kernel,
// so a fused epilogue gives the unfused graph's bits.
inline float ScalarSigmoid(float x) {
  if (x >= 0.f) return 1.f / (1.f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.f + e);
}

inline float ApplyActivation(const ActivationParams& p, float x) {
  switch (p.kind) {
    case Activation::kNone: return x;
    case Activation::kRelu: return x > 0.f ? x : 0.f;
    case Activation::kClip:  // ONNX Clip: with min > max every element becomes max
      if (x < p.alpha) x = p.alpha;
      if (x > p.beta) x = p.beta;
      return x;
    case Activation::kLeakyRelu: return x < 0.f ? p.alpha * x : x;
    case Activation::kSigmoid: return ScalarSigmoid(x);
    case Activation::kHardSigmoid: return std::fmax(0.f, std::fmin(1.f, p.alpha * x + p.beta));
    case Activation::kHardSwish: return x * std::fmax(0.f, std::fmin(1.f, x / 6.f + 0.5f));
    case Activation::kTanh: return std::tanh(x);
    case Activation::kSilu: return x * ScalarSigmoid(x);
  }
  return x;
}

// ApplyActivation over a buffer, with the switch outside the loop: a per-element switch keeps
// the compiler from vectorising Relu/Clip, and their data-dependent branches then mispredict on
// about half of the elements (it made a fused Conv+Relu slower than Conv then Relu).
inline void ApplyActivationInPlace(const ActivationParams& p, float* x, int64_t n) {
  switch (p.kind) {
    case Activation::kNone: return;
    case Activation::kRelu:
      for (int64_t i = 0; i < n; ++i) x[i] = x[i] > 0.f ? x[i] : 0.f;
      return;
    case Activation::kClip:
      for (int64_t i = 0; i < n; ++i) {
        float v = x[i];
        if (v < p.alpha) v = p.alpha;
        if (v > p.beta) v = p.beta;
        x[i] = v;
      }
      return;
    default:
      for (int64_t i = 0; i < n; ++i) x[i] = ApplyActivation(p, x[i]);
      return;
  }
}

}  // namespace kiln
