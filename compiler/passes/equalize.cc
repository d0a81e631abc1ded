// Pass equalize (--equalize): cross-layer equalization (Nagel et al. 2019, "Data-Free
// Quantization Through Weight Equalization and Bias Correction", section 4.1). For a FusedConv
// whose output goes through a positively homogeneous activation (none, Relu, LeakyRelu) only
// into other FusedConvs, output channel i of the first is divided by s_i and input channel i of
// every reader is multiplied by s_i, s_i = sqrt(r1_i / r2_i) (r1: weight range of output
// channel i, r2: the readers' weight range on input channel i), which equalizes the per-channel
// weight ranges without changing the function. Repeated until the scales settle. Relu6 (Clip)
// is not homogeneous, so pairs across it are left alone.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>

#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"
#include "ir/activation.h"

namespace kiln {
namespace {

struct Pair {
  NodeId producer;
  std::vector<NodeId> readers;
};

bool Homogeneous(const Node& n) {
  ActivationParams act;
  if (!ReadActivation(n.attrs, &act).ok()) return false;
  return act.kind == Activation::kNone || act.kind == Activation::kRelu ||
         act.kind == Activation::kLeakyRelu;
}

bool PlainF32(const Value& v) {
  return v.is_constant() && v.dtype == DType::kF32 && v.layout == Layout::kPlain;
}

// Every equalizable producer with its readers.
std::vector<Pair> FindPairs(const GraphRewriter& rw) {
  std::vector<Pair> pairs;
  for (NodeId id : rw.LiveNodes()) {
    const Node& n = rw.node(id);
    if (n.op != OpType::kFusedConv || !Homogeneous(n) || !PlainF32(rw.value(n.inputs[1]))) continue;
    if (n.inputs.size() > 3 && n.inputs[3] != kNoValue) continue;  // residual: not per channel
    if (n.inputs.size() > 2 && n.inputs[2] != kNoValue && !PlainF32(rw.value(n.inputs[2]))) continue;
    const ValueId y = n.outputs[0];
    if (rw.IsGraphOutput(y) || rw.uses(y).empty()) continue;
    const int64_t channels = rw.value(n.inputs[1]).shape[0];
    Pair p{id, {}};
    bool ok = true;
    for (const auto& u : rw.uses(y)) {
      const Node& r = rw.node(u.node);
      if (r.op != OpType::kFusedConv || u.index != 0 || !PlainF32(rw.value(r.inputs[1]))) {
        ok = false;
        break;
      }
      const int64_t group = r.attrs.GetInt("group", 1);
      const Shape& rs = rw.value(r.inputs[1]).shape;
      const bool depthwise = group == channels && rs[1] == 1;
      if (group != 1 && !depthwise) {
        ok = false;
        break;
      }
      p.readers.push_back(u.node);
    }
    if (ok) pairs.push_back(std::move(p));
  }
  return pairs;
}

// Weight range of input channel i of reader `r` (group 1: W[:, i]; depthwise: W[i]).
double ReaderRange(const std::vector<float>& w, const Shape& s, int64_t group, int64_t i) {
  const int64_t taps = NumElements(Shape(s.begin() + 2, s.end()));
  double r = 0;
  if (group == 1) {
    for (int64_t o = 0; o < s[0]; ++o) {
      for (int64_t t = 0; t < taps; ++t) r = std::max(r, std::fabs(double(w[static_cast<size_t>((o * s[1] + i) * taps + t)])));
    }
  } else {
    for (int64_t t = 0; t < taps; ++t) r = std::max(r, std::fabs(double(w[static_cast<size_t>(i * taps + t)])));
  }
  return r;
}

class EqualizePass : public Pass {
 public:
  std::string_view name() const override { return "equalize"; }
  std::string_view summary() const override {
    return "cross-layer equalization of Conv pairs (--equalize; Nagel et al. 2019)";
  }
  int min_opt_level() const override { return 2; }
  bool Enabled(const CompileOptions& options) const override { return options.equalize; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    const std::vector<Pair> pairs = FindPairs(rw);
    if (pairs.empty()) return Status::Ok();
    // Working copies of every weight and bias involved, written back at the end.
    std::map<ValueId, std::vector<float>> data;
    auto load = [&](ValueId v) -> std::vector<float>& {
      auto it = data.find(v);
      if (it == data.end()) it = data.emplace(v, *ConstantFloats(rw.value(v))).first;
      return it->second;
    };
    for (int iter = 0; iter < 20; ++iter) {
      double max_change = 0;
      for (const Pair& p : pairs) {
        const Node& prod = rw.node(p.producer);
        const ValueId w1v = prod.inputs[1];
        const Shape s1 = rw.value(w1v).shape;
        std::vector<float>& w1 = load(w1v);
        const int64_t c = s1[0];
        const int64_t per = NumElements(s1) / c;
        for (int64_t i = 0; i < c; ++i) {
          double r1 = 0;
          for (int64_t k = 0; k < per; ++k) r1 = std::max(r1, std::fabs(double(w1[static_cast<size_t>(i * per + k)])));
          double r2 = 0;
          for (NodeId r : p.readers) {
            const Node& rn = rw.node(r);
            r2 = std::max(r2, ReaderRange(load(rn.inputs[1]), rw.value(rn.inputs[1]).shape,
                                          rn.attrs.GetInt("group", 1), i));
          }
          if (r1 <= 0 || r2 <= 0) continue;
          const double s = std::clamp(std::sqrt(r1 / r2), 1e-4, 1e4);
          if (std::fabs(s - 1) < 1e-6) continue;
          max_change = std::max(max_change, std::fabs(std::log(s)));
          for (int64_t k = 0; k < per; ++k) w1[static_cast<size_t>(i * per + k)] = static_cast<float>(w1[static_cast<size_t>(i * per + k)] / s);
          if (prod.inputs.size() > 2 && prod.inputs[2] != kNoValue) {
            std::vector<float>& b = load(prod.inputs[2]);
            b[static_cast<size_t>(i)] = static_cast<float>(b[static_cast<size_t>(i)] / s);
          }
          for (NodeId r : p.readers) {
            const Node& rn = rw.node(r);
            const Shape& s2 = rw.value(rn.inputs[1]).shape;
            std::vector<float>& w2 = load(rn.inputs[1]);
            const int64_t taps = NumElements(Shape(s2.begin() + 2, s2.end()));
            if (rn.attrs.GetInt("group", 1) == 1) {
              for (int64_t o = 0; o < s2[0]; ++o) {
                for (int64_t t = 0; t < taps; ++t) {
                  float& x = w2[static_cast<size_t>((o * s2[1] + i) * taps + t)];
                  x = static_cast<float>(x * s);
                }
              }
            } else {
              for (int64_t t = 0; t < taps; ++t) {
                float& x = w2[static_cast<size_t>(i * taps + t)];
                x = static_cast<float>(x * s);
              }
            }
          }
        }
      }
      if (max_change < 1e-3) break;
    }
    // New constants (the old ones may be shared with other nodes).
    for (const Pair& p : pairs) {
      for (NodeId id : std::vector<NodeId>{p.producer}) {
        for (size_t slot : {size_t{1}, size_t{2}}) {
          const Node& n = rw.node(id);
          if (slot >= n.inputs.size() || n.inputs[slot] == kNoValue) continue;
          const ValueId v = n.inputs[slot];
          if (!data.count(v)) continue;
          rw.SetInput(id, slot, AddF32Constant(rw, rw.value(v).name + ".eq", rw.value(v).shape, data[v]));
        }
      }
      for (NodeId r : p.readers) {
        const ValueId v = rw.node(r).inputs[1];
        if (!data.count(v)) continue;
        rw.SetInput(r, 1, AddF32Constant(rw, rw.value(v).name + ".eq", rw.value(v).shape, data[v]));
      }
    }
    ctx.Count("pairs", static_cast<int64_t>(pairs.size()));
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeEqualizePass() { return std::make_unique<EqualizePass>(); }

}  // namespace kiln
