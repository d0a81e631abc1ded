// Pass weights-f16 (--weights-f16): stores the constant weights of FusedConv and FusedGemm as
// f16, in whatever layout they were packed into; kernels widen them while computing. Halves
// the file and the resident weights at a precision cost the user opts into.
#include "compiler/passes/passes.h"
#include "compiler/rewrite_utils.h"

namespace kiln {
namespace {

class WeightsF16Pass : public Pass {
 public:
  std::string_view name() const override { return "weights-f16"; }
  std::string_view summary() const override {
    return "store FusedConv/FusedGemm weights as f16 (--weights-f16)";
  }
  int min_opt_level() const override { return 2; }
  bool Enabled(const CompileOptions& options) const override { return options.weights_f16; }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    std::map<ValueId, ValueId> converted;  // shared weights are converted once
    for (NodeId id : rw.LiveNodes()) {
      const Node& n = rw.node(id);
      if (n.op != OpType::kFusedConv && n.op != OpType::kFusedGemm) continue;
      const ValueId w = n.inputs[1];
      const Value& v = rw.value(w);
      if (!v.is_constant() || v.dtype != DType::kF32) continue;
      auto it = converted.find(w);
      if (it == converted.end()) {
        // Elementwise, so the layout (padding included) is kept as it is.
        const size_t count = v.constant->size() / sizeof(float);
        std::vector<uint16_t> half(count);
        const float* f = v.constant->as<float>();
        for (size_t i = 0; i < count; ++i) half[i] = FloatToHalf(f[i]);
        const Layout layout = v.layout;
        const Shape shape = v.shape;
        const std::string name = v.name + ".f16";
        const ValueId h = rw.AddConstant(name, DType::kF16, shape,
                                         ConstantBytes::Copy(half.data(), half.size() * 2));
        rw.value(h).layout = layout;
        it = converted.emplace(w, h).first;
        ctx.Count("bytes-saved", static_cast<int64_t>(count * 2));
      }
      rw.SetInput(id, 1, it->second);
      ctx.Count("weights");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeWeightsF16Pass() { return std::make_unique<WeightsF16Pass>(); }

}  // namespace kiln
