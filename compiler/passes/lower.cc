// Plan pass lower: the target backend's compile-time lowering (Backend::Lower), after the memory
// plan: the payloads its executor reads from the file (the DSP's command streams, the GPU's
// program binaries). A lowering that needs values kept live longer (a fused DSP chain) has the
// memory planned again by the same planner under those constraints; the report then shows the
// plan the file carries.
#include "backends/backend_registry.h"
#include "compiler/passes/passes.h"

namespace kiln {
namespace {

const Backend* TargetBackend(const CompileOptions& options) {
  return options.target_backend == kExecutorCpu ? nullptr : FindBackend(options.target_backend);
}

class LowerPass : public Pass {
 public:
  std::string_view name() const override { return "lower"; }
  std::string_view summary() const override {
    return "the target backend's lowering: its payloads for the file (--target gpu|dsp)";
  }
  int min_opt_level() const override { return 0; }
  bool Enabled(const CompileOptions& options) const override {
    return TargetBackend(options) != nullptr;
  }
  std::string_view not_enabled_reason() const override { return "no target backend"; }

  Status Run(Graph& graph, PassContext& ctx) override {
    const Backend* target = TargetBackend(ctx.options());
    CompilePlan& plan = ctx.plan();
    MemoryPlanStats replanned;
    LoweringContext lowering{graph,   plan.plan,     ctx.options().backend_options,
                             nullptr, plan.payloads, {}};
    if (plan.memory_planned) {
      lowering.plan_memory = [&](const std::vector<std::pair<ValueId, NodeId>>& extra_reads) {
        MemoryPlannerOptions options = plan.memory_options;
        options.extra_reads = extra_reads;
        return PlanMemory(graph, plan.plan.schedule, options, &replanned);
      };
    }
    const std::vector<int64_t> offsets_before = plan.plan.memory.offsets;
    KILN_RETURN_IF_ERROR(
        target->Lower(lowering).WithContext("lowering for " + std::string(target->name())));
    if (plan.plan.memory.offsets != offsets_before) {  // the memory plan the file carries now
      plan.memory = replanned;
      ctx.Count("arena-kib", static_cast<int64_t>(replanned.arena_bytes / 1024));
      ctx.Count("lower-bound-kib", static_cast<int64_t>(replanned.lower_bound_bytes / 1024));
    }
    for (const auto& [counter, n] : lowering.counters) ctx.Count(counter, n);
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeLowerPass() { return std::make_unique<LowerPass>(); }

}  // namespace kiln
