// Pass fold-batchnorm: an inference BatchNormalization, or a constant per-channel Mul or Add,
// that follows a Conv (or a Gemm, per output feature) is folded into the producer's weights
// and bias: W'[c] = W[c] * s[c], b'[c] = b[c] * s[c] + t[c]. A BatchNormalization that no
// producer absorbs but whose output only an activation reads (densenet's pre-activation
// "BN -> Relu -> Conv") becomes a depthwise 1x1 Conv with weights s and bias t, which
// fuse-activation then gives the activation: one pass over the tensor instead of two.
#include <cmath>

#include "compiler/passes/fusion_util.h"
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

// The producer side: a Conv or Gemm whose weights and bias can absorb y' = y * s + t.
struct Affine {
  NodeId node;
  int64_t channels;      // output channels / features
  bool gemm_w_is_kn;     // Gemm with transB = 0: B is [K, N], features along axis 1
};

std::optional<Affine> FoldTarget(const GraphRewriter& rw, ValueId y) {
  auto p = rw.Producer(y);
  if (!p || !rw.SoleUser(y)) return std::nullopt;
  const Node& n = rw.node(*p);
  if (n.op != OpType::kConv && n.op != OpType::kGemm) return std::nullopt;
  const Value& w = rw.value(n.inputs[1]);
  if (!ConstantFloats(w) || w.dtype != DType::kF32) return std::nullopt;
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue &&
      (!ConstantFloats(rw.value(n.inputs[2])) || rw.value(n.inputs[2]).dtype != DType::kF32)) {
    return std::nullopt;
  }
  if (n.op == OpType::kConv) return Affine{*p, w.shape[0], false};
  // Gemm: only the plain y = A * B' + C form, with C absent or one value per feature.
  if (n.attrs.GetFloat("alpha", 1.f) != 1.f || n.attrs.GetFloat("beta", 1.f) != 1.f) {
    return std::nullopt;
  }
  const bool tb = n.attrs.GetInt("transB", 0) != 0;
  const int64_t features = tb ? w.shape[0] : w.shape[1];
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) {
    const Shape& c = rw.value(n.inputs[2]).shape;
    if (!(c.size() == 1 && c[0] == features) &&
        !(c.size() == 2 && c[0] == 1 && c[1] == features)) {
      return std::nullopt;
    }
  }
  return Affine{*p, features, !tb};
}

// "w.folded_2" -> "w": repeated folds name their constants after the original.
std::string FoldBase(std::string name) {
  const size_t at = name.rfind(".folded");
  if (at != std::string::npos && name.find_first_not_of("_0123456789", at + 7) == std::string::npos) {
    name.resize(at);
  }
  return name;
}

// Rewrites the producer's weights and bias for y' = y * scale + shift.
void Fold(GraphRewriter& rw, const Affine& t, const std::vector<float>& scale,
          const std::vector<float>& shift) {
  Node& n = rw.node(t.node);
  const Value& w = rw.value(n.inputs[1]);
  std::vector<float> weights = *ConstantFloats(w);
  const size_t c = static_cast<size_t>(t.channels);
  if (t.gemm_w_is_kn) {  // [K, N]: feature j is column j
    for (size_t i = 0; i < weights.size(); ++i) weights[i] *= scale[i % c];
  } else {  // [C, ...]: feature c is a contiguous row block
    const size_t per = weights.size() / c;
    for (size_t i = 0; i < weights.size(); ++i) weights[i] *= scale[i / per];
  }
  std::vector<float> bias(c, 0.f);
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue) bias = *ConstantFloats(rw.value(n.inputs[2]));
  for (size_t i = 0; i < c; ++i) bias[i] = bias[i] * scale[i] + shift[i];
  const Shape w_shape = w.shape;
  const std::string w_name = FoldBase(w.name), base = n.name;
  const ValueId new_w = AddF32Constant(rw, w_name + ".folded", w_shape, weights);
  const ValueId new_b = AddF32Constant(rw, base + ".bias.folded", {t.channels}, bias);
  rw.SetInput(t.node, 1, new_w);
  rw.SetInput(t.node, 2, new_b);
}

// The per-channel scale and shift of an inference BatchNormalization with constant
// parameters, or false.
bool BatchNormAffine(const GraphRewriter& rw, const Node& n, std::vector<float>* scale,
                     std::vector<float>* shift) {
  if (!OnlyFirstOutputUsed(rw, n) || n.attrs.GetInt("training_mode", 0) != 0) return false;
  if (n.inputs.size() < 5) return false;
  for (size_t i = 1; i < 5; ++i) {
    if (n.inputs[i] == kNoValue) return false;
  }
  auto gamma = ConstantFloats(rw.value(n.inputs[1]));
  auto beta = ConstantFloats(rw.value(n.inputs[2]));
  auto mean = ConstantFloats(rw.value(n.inputs[3]));
  auto var = ConstantFloats(rw.value(n.inputs[4]));
  if (!gamma || !beta || !mean || !var) return false;
  const size_t c = gamma->size();
  if (beta->size() != c || mean->size() != c || var->size() != c) return false;
  const float eps = n.attrs.GetFloat("epsilon", 1e-5f);
  scale->resize(c);
  shift->resize(c);
  for (size_t i = 0; i < c; ++i) {
    (*scale)[i] = (*gamma)[i] / std::sqrt((*var)[i] + eps);
    (*shift)[i] = (*beta)[i] - (*mean)[i] * (*scale)[i];
  }
  return true;
}

// Rewrites BatchNormalization `id` (f32 [N, C, H, W], constant parameters, its output read by
// one activation alone that fuse-activation will take) in place into Conv(x, s as
// [C, 1, 1, 1], t) with group C.
bool BatchNormToDepthwise(GraphRewriter& rw, NodeId id, const PassContext& ctx) {
  const Node& n = rw.node(id);
  if (n.outputs.size() != 1) return false;
  const Value& x = rw.value(n.inputs[0]);
  if (x.dtype != DType::kF32 || x.shape.size() != 4 || x.shape[1] <= 0) return false;
  auto user = rw.SoleUser(n.outputs[0]);
  if (!user || !FusableActivation(rw, *user, n.outputs[0], ctx) ||
      rw.IsGraphOutput(n.outputs[0])) {
    return false;
  }
  std::vector<float> scale, shift;
  if (!BatchNormAffine(rw, n, &scale, &shift)) return false;
  const int64_t c = x.shape[1];
  if (static_cast<int64_t>(scale.size()) != c) return false;
  const std::string base = n.name.empty() ? "batchnorm" : n.name;
  const ValueId w = AddF32Constant(rw, base + ".dw_weight", {c, 1, 1, 1}, scale);
  const ValueId b = AddF32Constant(rw, base + ".dw_bias", {c}, shift);
  rw.SetInput(id, 1, w);
  rw.SetInput(id, 2, b);
  for (size_t i = 3; i < rw.node(id).inputs.size(); ++i) rw.SetInput(id, i, kNoValue);
  Node& conv = rw.node(id);
  conv.inputs.resize(3);
  conv.op = OpType::kConv;
  conv.attrs = Attributes();
  conv.attrs.Set("group", c);
  conv.attrs.Set("kernel_shape", std::vector<int64_t>{1, 1});
  return true;
}

class FoldBatchNormPass : public Pass {
 public:
  std::string_view name() const override { return "fold-batchnorm"; }
  std::string_view summary() const override {
    return "fold BatchNormalization and constant per-channel Mul/Add into Conv/Gemm weights";
  }
  int min_opt_level() const override { return 2; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      const Node& n = rw.node(id);
      std::vector<float> scale, shift;
      ValueId x = kNoValue;
      if (n.op == OpType::kBatchNormalization) {
        x = n.inputs[0];
        auto target = FoldTarget(rw, x);
        if (!target) {
          if (BatchNormToDepthwise(rw, id, ctx)) ctx.Count("batchnorm-to-depthwise");
          continue;
        }
        if (!BatchNormAffine(rw, n, &scale, &shift)) continue;
        if (static_cast<int64_t>(scale.size()) != target->channels) continue;
        Fold(rw, *target, scale, shift);
      } else if (n.op == OpType::kMul || n.op == OpType::kAdd) {
        // One input from a Conv/Gemm, the other a per-channel constant.
        std::optional<Affine> target;
        size_t other = 0;
        for (size_t i = 0; i < 2 && !target; ++i) {
          target = FoldTarget(rw, n.inputs[i]);
          other = 1 - i;
          x = n.inputs[i];
        }
        if (!target) continue;
        const Value& xv = rw.value(x);
        if (rw.value(n.outputs[0]).shape != xv.shape) continue;  // no broadcasting growth
        std::vector<float> k;
        if (!PerChannelConstant(rw.value(n.inputs[other]), target->channels, xv.shape.size(), &k)) {
          continue;
        }
        if (n.op == OpType::kMul) {
          scale = k;
          shift.assign(k.size(), 0.f);
        } else {
          scale.assign(k.size(), 1.f);
          shift = k;
        }
        Fold(rw, *target, scale, shift);
      } else {
        continue;
      }
      const NodeId producer = *rw.Producer(x);
      rw.node(producer).sources = rw.MergeSources({producer, id});
      rw.ReplaceAllUsesWith(rw.node(id).outputs[0], x);
      KILN_RETURN_IF_ERROR(rw.EraseNode(id));
      ctx.Count(n.op == OpType::kBatchNormalization ? "batchnorm" : "mul-add");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldBatchNormPass() { return std::make_unique<FoldBatchNormPass>(); }

}  // namespace kiln
