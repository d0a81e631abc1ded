// Constant reading and making for the rewrite passes.
#include "compiler/rewrite_utils.h"

#include <cstring>

namespace kiln {

std::optional<std::vector<float>> ConstantFloats(const Value& v) {
  if (!v.is_constant() || v.layout != Layout::kPlain) return std::nullopt;
  const size_t n = static_cast<size_t>(v.num_elements());
  std::vector<float> out(n);
  if (v.dtype == DType::kF32) {
    if (n) std::memcpy(out.data(), v.constant->data(), n * sizeof(float));
    return out;
  }
  if (v.dtype == DType::kF16) {
    const auto* h = v.constant->as<uint16_t>();
    for (size_t i = 0; i < n; ++i) out[i] = HalfToFloat(h[i]);
    return out;
  }
  return std::nullopt;
}

std::optional<std::vector<int64_t>> ConstantInts(const Value& v) {
  if (!v.is_constant() || v.layout != Layout::kPlain) return std::nullopt;
  const size_t n = static_cast<size_t>(v.num_elements());
  std::vector<int64_t> out(n);
  if (v.dtype == DType::kI64) {
    if (n) std::memcpy(out.data(), v.constant->data(), n * sizeof(int64_t));
    return out;
  }
  if (v.dtype == DType::kI32) {
    const auto* p = v.constant->as<int32_t>();
    for (size_t i = 0; i < n; ++i) out[i] = p[i];
    return out;
  }
  return std::nullopt;
}

ValueId AddF32Constant(GraphRewriter& rw, const std::string& base, Shape shape,
                       const std::vector<float>& data) {
  return rw.AddConstant(base, DType::kF32, std::move(shape),
                        ConstantBytes::Copy(data.data(), data.size() * sizeof(float)));
}

bool PerChannelConstant(const Value& v, int64_t channels, size_t rank,
                        std::vector<float>* per_channel) {
  auto data = ConstantFloats(v);
  if (!data) return false;
  if (data->size() == 1) {
    if (v.shape.size() > rank) return false;
    per_channel->assign(static_cast<size_t>(channels), (*data)[0]);
    return true;
  }
  if (static_cast<int64_t>(data->size()) != channels) return false;
  // Broadcast against [N, C, spatial...]: right-aligned, the channel dim must land on axis 1
  // and every other dim must be 1.
  if (v.shape.size() > rank || v.shape.size() < rank - 1) return false;
  const size_t channel_axis = 1 - (rank - v.shape.size());
  for (size_t i = 0; i < v.shape.size(); ++i) {
    if (i == channel_axis ? v.shape[i] != channels : v.shape[i] != 1) return false;
  }
  *per_channel = std::move(*data);
  return true;
}

bool CanBypass(const GraphRewriter& rw, ValueId in, ValueId out) {
  return !(rw.IsGraphOutput(out) &&
           (rw.IsGraphInput(in) || rw.value(in).is_constant() || rw.IsGraphOutput(in)));
}

ValueId SoleOutput(const Node& n) {
  ValueId out = kNoValue;
  for (ValueId o : n.outputs) {
    if (o == kNoValue) continue;
    if (out != kNoValue) return kNoValue;
    out = o;
  }
  return out;
}

bool OnlyFirstOutputUsed(const GraphRewriter& rw, const Node& n) {
  for (size_t i = 1; i < n.outputs.size(); ++i) {
    if (n.outputs[i] != kNoValue && rw.NumUses(n.outputs[i]) > 0) return false;
  }
  return !n.outputs.empty() && n.outputs[0] != kNoValue;
}

}  // namespace kiln
