// The DSP backend: claims the quantized nodes the DSP target runs within its scratchpad, costed
// by the cycles of their planned command streams, and makes the DSP executor. Its islands stay
// on it only where they pay for their hand-offs to the CPU.
#include <algorithm>

#include "backends/backend.h"
#include "backends/dsp/dsp_executor.h"
#include "backends/dsp/dsp_lowering.h"
#include "backends/dsp/dsp_options.h"
#include "backends/dsp/dsp_weight_packing.h"
#include "backends/dsp/kernels/dsp_engine.h"
#include "backends/dsp/kernels/dsp_op.h"

namespace kiln {
namespace {

class DspBackend : public Backend {
 public:
  std::string_view name() const override { return kExecutorDsp; }
  bool places_islands_by_cost() const override { return true; }

  NodeClaim Claim(const Graph& graph, const Node& node,
                  const BackendOptions& options) const override {
    // The op and its plan once: the refusal reason is theirs (as DspFallbackReason's), the cost
    // is the plan's cycles.
    const DspOptions dsp = options.Get<DspOptions>();
    auto op = MakeDspOp(graph, node);
    if (!op.ok()) return NodeClaim::Refused(op.status().message());
    auto program = (*op)->Plan(dsp.scratch_bytes);
    if (!program.ok()) return NodeClaim::Refused(program.status().message());
    const int64_t cycles = DspProgramCycles(*program, **op, dsp.cost);
    return NodeClaim::Claimed(static_cast<double>(cycles) /
                              static_cast<double>(std::max<int64_t>(1, dsp.cost.clock_mhz)));
  }

  double TransferUs(const Graph&, ValueId, const BackendOptions& options) const override {
    return options.Get<DspOptions>().handoff_us;
  }

  bool PacksWeights(Isa) const override { return true; }
  Status PackWeights(WeightPackingContext& ctx) const override { return PackDspWeights(ctx); }

  Status Lower(LoweringContext& ctx) const override { return LowerDspPrograms(ctx); }

  void AdoptFromModel(const ModelPayloads& model, BackendOptions& options) const override {
    DspOptions& dsp = options.Mutable<DspOptions>();
    if (!dsp.programs) dsp.programs = model.dsp_programs;
  }

  Expected<std::unique_ptr<Executor>> MakeExecutor(const ExecutorRequest& r) const override {
    if (!r.device.empty()) {
      return InvalidArgument("executor '" + r.requested + "': the DSP has no devices to choose");
    }
    return MakeDspExecutor(r.options ? r.options->Get<DspOptions>() : DspOptions{});
  }
};

}  // namespace

std::unique_ptr<Backend> MakeDspBackend() { return std::make_unique<DspBackend>(); }

}  // namespace kiln
