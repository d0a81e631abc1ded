// Plan pass memory-plan: one arena for every activation, offsets by best fit over the values'
// lifetimes in the schedule (compiler/memory/memory_planner.h), aliasing where memory-alias
// allows. Skipped (disabled), every activation gets its own range: MemoryPlan::NoReuse.
#include "compiler/passes/passes.h"

namespace kiln {
namespace {

class MemoryPlanPass : public Pass {
 public:
  std::string_view name() const override { return "memory-plan"; }
  std::string_view summary() const override {
    return "plan one arena for the activations, reusing memory by lifetime";
  }
  int min_opt_level() const override { return 0; }

  Status Run(Graph& graph, PassContext& ctx) override {
    CompilePlan& plan = ctx.plan();
    KILN_ASSIGN_OR_RETURN(plan.plan.memory,
                          PlanMemory(graph, plan.plan.schedule, plan.memory_options, &plan.memory));
    plan.memory_planned = true;
    ctx.Count("arena-kib", static_cast<int64_t>(plan.memory.arena_bytes / 1024));
    ctx.Count("lower-bound-kib", static_cast<int64_t>(plan.memory.lower_bound_bytes / 1024));
    ctx.Count("no-reuse-kib", static_cast<int64_t>(plan.memory.no_reuse_bytes / 1024));
    ctx.Count("inplace", plan.memory.inplace_ops);
    ctx.Count("elided", plan.memory.elided_views + plan.memory.elided_concats);
    return Status::Ok();
  }
  Status RunSkipped(Graph& graph, PassContext& ctx) override {
    ctx.plan().plan.memory = MemoryPlan::NoReuse(graph);
    ctx.Note("no reuse");
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeMemoryPlanPass() { return std::make_unique<MemoryPlanPass>(); }

}  // namespace kiln
