// The quantize pass's weight and bias rewriting for integer FusedConv/FusedGemm: symmetric int8
// weights (per output channel unless --weights per-tensor) behind a DequantizeLinear, the bias
// as int32 at scale s_x * s_w[c] behind another, and optional bias correction (Nagel et al.
// 2019, section 4.2): the expected output shift the weight rounding causes,
// E[(W_q - W) x] = (W_q - W) E[x], taken from the calibration channel means of the input and
// subtracted from the bias.
#include "compiler/quantize/quantize_weights.h"

#include <cmath>

#include "compiler/quantize/qdq_utils.h"
#include "compiler/rewrite_utils.h"

namespace kiln::quant {
namespace {

// The input's per-channel means (axis 1), when calibration collected them.
std::vector<double> InputMeans(const QuantizeConfig& config, const std::string& name) {
  auto it = config.stats->tensors.find(name);
  if (it == config.stats->tensors.end()) return {};
  return it->second.ChannelMeans();
}

QuantParams WeightParams(const QuantizedWeights& qw, int64_t axis) {
  QuantParams q;
  q.scales = qw.scales;
  q.zero_points.assign(qw.scales.size(), 0);
  q.axis = qw.scales.size() > 1 ? axis : -1;
  return q;
}

// Replaces input `slot` of `id` by DQ(int constant).
void SetDequantizedInput(GraphRewriter& rw, NodeId id, size_t slot, const std::string& base,
                         DType t, const Shape& shape, const void* data, const QuantParams& q) {
  const ValueId c = AddQuantizedConstant(rw, base, t, shape, data, q);
  const ValueId f = InsertDequantize(rw, c, q, kNoValue, id, rw.node(id).sources);
  rw.SetInput(id, slot, f);
}

// Bias (int32, scale s_x * s_w[c]) behind a DQ, as input `slot`; with an int16 input or int16
// weights (`wide`) a float constant: at s_x * s_w an int32 would not hold it, and lower-qdq
// writes it as int64.
void SetBias(GraphRewriter& rw, NodeId id, size_t slot, const std::string& base,
             const std::vector<float>& bias, float s_x, const std::vector<float>& s_w, bool wide) {
  if (rw.node(id).inputs.size() <= slot) rw.node(id).inputs.resize(slot + 1, kNoValue);
  if (wide) {
    const ValueId c =
        rw.AddConstant(base + ".f32", DType::kF32, {static_cast<int64_t>(bias.size())},
                       ConstantBytes::Copy(bias.data(), bias.size() * sizeof(float)));
    rw.SetInput(id, slot, c);
    return;
  }
  const std::vector<int32_t> q = QuantizeBias(bias, s_x, s_w);
  QuantParams p;
  for (size_t c = 0; c < bias.size(); ++c) p.scales.push_back(s_x * s_w[s_w.size() == 1 ? 0 : c]);
  p.zero_points.assign(p.scales.size(), 0);
  p.axis = 0;
  SetDequantizedInput(rw, id, slot, base, DType::kI32, {static_cast<int64_t>(bias.size())},
                      q.data(), p);
}

}  // namespace

Status QuantizeConvWeights(GraphRewriter& rw, NodeId id, const QuantParams& x_params, DType x_type,
                           bool w16, const QuantizeConfig& config, PassContext& ctx) {
  const Node& n = rw.node(id);
  const Value& wv = rw.value(n.inputs[1]);
  const std::string wname = wv.name, xname = rw.value(n.inputs[0]).name;
  const Shape ws = wv.shape;
  const int64_t m = ws[0];
  auto w = ConstantFloats(wv);
  if (!w) return Internal("weight of '" + n.name + "' is not a float constant");
  std::vector<float> bias(static_cast<size_t>(m), 0.f);
  const bool has_bias = n.inputs.size() > 2 && n.inputs[2] != kNoValue;
  if (has_bias) {
    auto b = ConstantFloats(rw.value(n.inputs[2]));
    if (!b || static_cast<int64_t>(b->size()) != m) return Internal("bias of '" + n.name + "'");
    bias = *b;
  }
  // int16 input or weights: an int64 bias, so no floor on the weight scales.
  const bool wide = Is16BitActivation(x_type) || w16;
  const QuantizedWeights qw = QuantizeWeightsAxis0(
      *w, m, config.per_channel_weights,
      wide ? std::vector<float>{}
           : MinWeightScales(bias, x_params.scales[0], config.per_channel_weights),
      w16 ? 16 : 8);
  if (config.bias_correct) {
    const std::vector<double> means = InputMeans(config, xname);
    const int64_t group = n.attrs.GetInt("group", 1);
    const int64_t icpg = ws[1];
    const int64_t taps = NumElements(Shape(ws.begin() + 2, ws.end()));
    const int64_t in_channels = icpg * group;
    if (static_cast<int64_t>(means.size()) == in_channels) {
      const int64_t ocpg = m / group;
      for (int64_t oc = 0; oc < m; ++oc) {
        const double s = qw.scales[qw.scales.size() == 1 ? 0 : static_cast<size_t>(oc)];
        double shift = 0;
        for (int64_t ic = 0; ic < icpg; ++ic) {
          const double mean = means[static_cast<size_t>((oc / ocpg) * icpg + ic)];
          for (int64_t t = 0; t < taps; ++t) {
            const size_t k = static_cast<size_t>((oc * icpg + ic) * taps + t);
            shift += (static_cast<double>(qw.code(k)) * s - (*w)[k]) * mean;
          }
        }
        bias[static_cast<size_t>(oc)] -= static_cast<float>(shift);
      }
      ctx.Count("bias-corrected");
    }
  }
  SetDequantizedInput(rw, id, 1, wname + (w16 ? ".i16" : ".i8"), qw.dtype(), ws, qw.data(),
                      WeightParams(qw, 0));
  if (has_bias || config.bias_correct) {
    SetBias(rw, id, 2, wname + ".bias.i32", bias, x_params.scales[0], qw.scales, wide);
  }
  ctx.Count("weights");
  return Status::Ok();
}

Status QuantizeGemmWeights(GraphRewriter& rw, NodeId id, const QuantParams& a_params, DType a_type,
                           bool w16, const QuantizeConfig& config, PassContext& ctx) {
  Node& n = rw.node(id);
  const bool tb = n.attrs.GetInt("transB", 0) != 0;
  const float alpha = n.attrs.GetFloat("alpha", 1.f), beta = n.attrs.GetFloat("beta", 1.f);
  const Value& bv = rw.value(n.inputs[1]);
  const std::string bname = bv.name, aname = rw.value(n.inputs[0]).name;
  const Shape bs = bv.shape;
  auto b = ConstantFloats(bv);
  if (!b || bs.size() != 2) return Internal("B of '" + n.name + "' is not a 2-D float constant");
  for (float& x : *b) x *= alpha;
  const int64_t nout = tb ? bs[0] : bs[1];
  const int64_t k = tb ? bs[1] : bs[0];
  // Per output feature: axis 0 of [N, K], axis 1 of [K, N].
  std::vector<float> c(static_cast<size_t>(nout), 0.f);
  const bool has_c = n.inputs.size() > 2 && n.inputs[2] != kNoValue;
  if (has_c) {
    auto cv = ConstantFloats(rw.value(n.inputs[2]));
    if (!cv) return Internal("C of '" + n.name + "' is not a float constant");
    for (int64_t j = 0; j < nout; ++j) {
      c[static_cast<size_t>(j)] = beta * (*cv)[cv->size() == 1 ? 0 : static_cast<size_t>(j)];
    }
  }
  const bool wide = Is16BitActivation(a_type) || w16;
  const std::vector<float> floor =
      wide ? std::vector<float>{}
           : MinWeightScales(c, a_params.scales[0], config.per_channel_weights);
  const int bits = w16 ? 16 : 8;
  const QuantizedWeights qw = !config.per_channel_weights
                                  ? QuantizeWeightsSymmetric(*b, 1, nout * k, 1, floor, bits)
                              : tb ? QuantizeWeightsSymmetric(*b, nout, k, 1, floor, bits)
                                   : QuantizeWeightsSymmetric(*b, nout, 1, k, floor, bits);
  if (config.bias_correct) {
    const std::vector<double> means = InputMeans(config, aname);
    const Shape& as = rw.value(n.inputs[0]).shape;
    const int64_t axis = n.attrs.GetInt("a_flatten_axis", 1);
    // Feature kk of the flattened A lies in channel (kk / inner) of A's axis 1.
    const int64_t inner = as.size() > 2 ? NumElements(Shape(as.begin() + 2, as.end())) : 1;
    if (axis == 1 && !means.empty() && static_cast<int64_t>(means.size()) * inner == k) {
      for (int64_t j = 0; j < nout; ++j) {
        const double s = qw.scales[qw.scales.size() == 1 ? 0 : static_cast<size_t>(j)];
        double shift = 0;
        for (int64_t kk = 0; kk < k; ++kk) {
          const size_t idx = static_cast<size_t>(tb ? j * k + kk : kk * nout + j);
          shift += (static_cast<double>(qw.code(idx)) * s - (*b)[idx]) *
                   means[static_cast<size_t>(kk / inner)];
        }
        c[static_cast<size_t>(j)] -= static_cast<float>(shift);
      }
      ctx.Count("bias-corrected");
    }
  }
  rw.node(id).attrs.Set("alpha", 1.f);
  rw.node(id).attrs.Set("beta", 1.f);
  SetDequantizedInput(rw, id, 1, bname + (w16 ? ".i16" : ".i8"), qw.dtype(), bs, qw.data(),
                      WeightParams(qw, tb ? 0 : 1));
  if (has_c || config.bias_correct) {
    SetBias(rw, id, 2, bname + ".bias.i32", c, a_params.scales[0], qw.scales, wide);
  }
  ctx.Count("weights");
  return Status::Ok();
}

}  // namespace kiln::quant
