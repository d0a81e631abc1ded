// Pass fold-pad: a constant Pad of the spatial axes feeding a window op becomes the consumer's
// own pads when the padding value is what the op's pads mean: zero for Conv and for an
// AveragePool that counts padding, minus infinity for MaxPool (whose pads never win).
#include <limits>

#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

// The Pad's constant padding value (0 when absent), or nullopt when it is not a constant pad.
std::optional<float> PadValue(const GraphRewriter& rw, const Node& pad) {
  if (pad.attrs.GetString("mode", "constant") != "constant") return std::nullopt;
  if (pad.inputs.size() <= 2 || pad.inputs[2] == kNoValue) return 0.f;
  auto value = ConstantFloats(rw.value(pad.inputs[2]));
  if (!value || value->size() != 1) return std::nullopt;
  return (*value)[0];
}

// The Pad's spatial pads as [b1..bk, e1..ek] when it pads only the spatial axes of a
// rank-(k+2) tensor, by non-negative amounts; else empty.
std::vector<int64_t> SpatialPads(const GraphRewriter& rw, const Node& pad) {
  if (pad.inputs.size() < 2 || pad.inputs[1] == kNoValue) return {};
  if (pad.inputs.size() > 3 && pad.inputs[3] != kNoValue) return {};  // axes (opset 18)
  auto pads = ConstantInts(rw.value(pad.inputs[1]));
  const size_t rank = rw.value(pad.inputs[0]).shape.size();
  if (!pads || pads->size() != 2 * rank || rank < 3) return {};
  const size_t k = rank - 2;
  std::vector<int64_t> spatial(2 * k);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t b = (*pads)[i], e = (*pads)[rank + i];
    if (b < 0 || e < 0) return {};
    if (i < 2) {
      if (b != 0 || e != 0) return {};
      continue;
    }
    spatial[i - 2] = b;
    spatial[k + i - 2] = e;
  }
  return spatial;
}

// Whether the window op `c` reads padded positions as `value`.
bool PadsMean(const Node& c, float value) {
  if (c.attrs.GetString("auto_pad", "NOTSET") != "NOTSET") return false;
  if (c.op == OpType::kConv || c.op == OpType::kFusedConv) return value == 0.f;
  // Zeros inside the window are only right for an average that counts padded positions.
  if (c.op == OpType::kAveragePool) {
    return value == 0.f && c.attrs.GetInt("count_include_pad", 0) != 0;
  }
  if (c.op == OpType::kMaxPool) {
    return value == -std::numeric_limits<float>::infinity() && c.outputs.size() < 2;
  }
  return false;
}

class FoldPadPass : public Pass {
 public:
  std::string_view name() const override { return "fold-pad"; }
  std::string_view summary() const override {
    return "fold constant Pad into the following Conv / AveragePool / MaxPool pads";
  }
  int min_opt_level() const override { return 2; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    for (NodeId id : rw.LiveNodes()) {
      const Node& pad = rw.node(id);
      if (pad.op != OpType::kPad) continue;
      auto user = rw.SoleUser(pad.outputs[0]);
      const auto value = PadValue(rw, pad);
      if (!user || !value || rw.node(*user).inputs[0] != pad.outputs[0] ||
          !PadsMean(rw.node(*user), *value)) {
        continue;
      }
      std::vector<int64_t> extra = SpatialPads(rw, pad);
      if (extra.empty()) continue;
      Node& c = rw.node(*user);
      std::vector<int64_t> pads = c.attrs.GetInts("pads", std::vector<int64_t>(extra.size(), 0));
      if (pads.size() != extra.size()) continue;
      for (size_t i = 0; i < pads.size(); ++i) pads[i] += extra[i];
      c.attrs.Set("pads", pads);
      c.sources = rw.MergeSources({id, *user});
      rw.SetInput(*user, 0, pad.inputs[0]);
      KILN_RETURN_IF_ERROR(rw.EraseNode(id));
      ctx.Count("folded");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeFoldPadPass() { return std::make_unique<FoldPadPass>(); }

}  // namespace kiln
