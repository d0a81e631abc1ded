// Activation names and their attribute encoding on fused nodes.
#include "ir/activation.h"

#include <array>
#include <utility>

namespace kiln {
namespace {

constexpr std::array<std::pair<Activation, std::string_view>, 9> kNames = {{
    {Activation::kNone, "none"},
    {Activation::kRelu, "relu"},
    {Activation::kClip, "clip"},
    {Activation::kLeakyRelu, "leaky_relu"},
    {Activation::kSigmoid, "sigmoid"},
    {Activation::kHardSigmoid, "hard_sigmoid"},
    {Activation::kHardSwish, "hard_swish"},
    {Activation::kTanh, "tanh"},
    {Activation::kSilu, "silu"},
}};

}  // namespace

std::string_view ActivationName(Activation a) {
  for (const auto& [kind, name] : kNames) {
    if (kind == a) return name;
  }
  return "unknown";
}

std::optional<Activation> ActivationFromName(std::string_view name) {
  for (const auto& [kind, n] : kNames) {
    if (n == name) return kind;
  }
  return std::nullopt;
}

Status ReadActivation(const Attributes& attrs, ActivationParams* out) {
  const std::string name = attrs.GetString(kActivationAttr, "none");
  const auto kind = ActivationFromName(name);
  if (!kind) return InvalidArgument("unknown fused activation '" + name + "'");
  out->kind = *kind;
  out->alpha = attrs.GetFloat(kActivationAlphaAttr, 0.f);
  out->beta = attrs.GetFloat(kActivationBetaAttr, 0.f);
  return Status::Ok();
}

void WriteActivation(const ActivationParams& p, Attributes* attrs) {
  attrs->Erase(kActivationAttr);
  attrs->Erase(kActivationAlphaAttr);
  attrs->Erase(kActivationBetaAttr);
  if (p.kind == Activation::kNone) return;
  attrs->Set(kActivationAttr, std::string(ActivationName(p.kind)));
  if (p.kind == Activation::kClip || p.kind == Activation::kLeakyRelu ||
      p.kind == Activation::kHardSigmoid) {
    attrs->Set(kActivationAlphaAttr, p.alpha);
  }
  if (p.kind == Activation::kClip || p.kind == Activation::kHardSigmoid) {
    attrs->Set(kActivationBetaAttr, p.beta);
  }
}

}  // namespace kiln
