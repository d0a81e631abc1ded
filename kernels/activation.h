// The activations a fused node applies in its epilogue, with their scalar definition. One
// place for every kernel (reference, SIMD, GPU host side) so they agree on the math.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "ir/attribute.h"
#include "ir/status.h"

namespace kiln {

enum class Activation : int32_t {
  kNone = 0,
  kRelu = 1,
  kClip = 2,         // min(max(x, alpha), beta)
  kLeakyRelu = 3,    // x >= 0 ? x : alpha * x
  kSigmoid = 4,
  kHardSigmoid = 5,  // max(0, min(1, alpha * x + beta))
  kHardSwish = 6,    // x * max(0, min(1, x / 6 + 1/2))
  kTanh = 7,
  kSilu = 8,         // x * sigmoid(x)
};

struct ActivationParams {
  Activation kind = Activation::kNone;
  float alpha = 0.f;
  float beta = 0.f;
};

// Attribute names on fused nodes: activation = "relu" | "clip" | ...; activation_alpha/beta.
inline constexpr const char* kActivationAttr = "activation";
inline constexpr const char* kActivationAlphaAttr = "activation_alpha";
inline constexpr const char* kActivationBetaAttr = "activation_beta";

std::string_view ActivationName(Activation a);
std::optional<Activation> ActivationFromName(std::string_view name);
// Reads the three attributes; an unknown name is an error.
Status ReadActivation(const Attributes& attrs, ActivationParams* out);
void WriteActivation(const ActivationParams& p, Attributes* attrs);

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

}  // namespace kiln
