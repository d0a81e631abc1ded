// The activations a fused node applies in its epilogue (an IR attribute: names, parameters
// and their encoding). kernels/activation.h holds the scalar math every kernel shares.
#pragma once

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

}  // namespace kiln
