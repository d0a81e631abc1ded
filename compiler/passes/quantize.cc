// Pass quantize: with calibration statistics (CompileOptions::quantize, `kiln quantize`), plans
// which nodes become integer and which values are quantized (compiler/quantize/quant_plan.h),
// quantizes the weights and biases of the integer linear ops, and puts a QuantizeLinear ->
// DequantizeLinear pair after every quantized value. The result is the graph in QDQ form,
// numerically the "fake-quantized" model; lower-qdq then turns it into integer ops.
#include "compiler/passes/passes.h"
#include "compiler/quantize/qdq_utils.h"
#include "compiler/quantize/quant_plan.h"
#include "compiler/quantize/quantize_weights.h"
#include "quant/quantize_config.h"

namespace kiln {
namespace {

class QuantizePass : public Pass {
 public:
  std::string_view name() const override { return "quantize"; }
  std::string_view summary() const override {
    return "plan int8 quantization from calibration statistics and write it as Q/DQ pairs";
  }
  int min_opt_level() const override { return 0; }
  bool required() const override { return true; }
  bool Enabled(const CompileOptions& options) const override {
    return options.quantize && options.quantize->stats;
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    const quant::QuantizeConfig& config = *ctx.options().quantize;
    GraphRewriter rw(graph);
    KILN_ASSIGN_OR_RETURN(quant::QuantPlan plan, quant::PlanQuantization(rw, config, ctx));
    const size_t values = graph.num_values();
    for (NodeId id : rw.LiveNodes()) {
      if (!plan.integer[static_cast<size_t>(id)]) continue;
      const quant::NodeKind k = plan.kind[static_cast<size_t>(id)];
      const size_t xv = static_cast<size_t>(rw.node(id).inputs[0]);
      const QuantParams& x = plan.params[xv];
      const DType xt = plan.dtype[xv];
      const bool w16 = plan.int16_weights[static_cast<size_t>(id)];
      if (k == quant::NodeKind::kConv) {
        KILN_RETURN_IF_ERROR(quant::QuantizeConvWeights(rw, id, x, xt, w16, config, ctx));
      } else if (k == quant::NodeKind::kGemm) {
        KILN_RETURN_IF_ERROR(quant::QuantizeGemmWeights(rw, id, x, xt, w16, config, ctx));
      }
      ctx.Count("integer-nodes");
    }
    for (size_t v = 0; v < values; ++v) {
      if (!plan.quantize[v]) continue;
      const ValueId id = static_cast<ValueId>(v);
      NodeId anchor = kNoNode;
      for (const auto& u : rw.uses(id))
        anchor = anchor == kNoNode ? u.node : std::min(anchor, u.node);
      quant::InsertQdqPair(rw, id, plan.params[v], plan.dtype[v], anchor);
      ctx.Count("quantized-values");
    }
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeQuantizePass() { return std::make_unique<QuantizePass>(); }

}  // namespace kiln
