// CompileGraph: the default pipeline (graph passes, then the plan passes), plan validation.
#include "compiler/pipeline.h"

#include <algorithm>

#include "compiler/passes/passes.h"
#include "ir/plan_rules.h"

namespace kiln {

std::vector<std::unique_ptr<Pass>> DefaultPasses() {
  std::vector<std::unique_ptr<Pass>> p;
  p.push_back(MakeFoldConstantsPass());
  p.push_back(MakeRemoveIdentityPass());
  p.push_back(MakeFoldTransposesPass());
  p.push_back(MakeFoldBatchNormPass());
  p.push_back(MakeFoldPadPass());
  p.push_back(MakeMatMulToGemmPass());
  p.push_back(MakeFuseActivationPass());
  p.push_back(MakeFuseResidualPass());
  p.push_back(MakeFoldFlattenIntoGemmPass());
  p.push_back(MakeDeadCodePass());
  p.push_back(MakeEqualizePass());
  p.push_back(MakeQuantizePass());
  p.push_back(MakeLowerQdqPass());
  p.push_back(MakePlaceNodesPass());
  // Before the weights are packed: a convolution stored blocked packs its weights for the
  // NCHW8c kernels (Block16O) instead of Winograd's layout.
  p.push_back(MakeBlockedLayoutPass());
  p.push_back(MakePackWeightsPass());
  p.push_back(MakeWeightsF16Pass());
  // The plan passes: they read the final graph.
  p.push_back(MakeStreamsPass());
  p.push_back(MakeMemoryAliasPass());
  p.push_back(MakeMemoryPlanPass());
  p.push_back(MakeLowerPass());
  return p;
}

std::vector<std::string> KnownPassNames() {
  std::vector<std::string> names;
  for (const auto& p : DefaultPasses()) names.emplace_back(p->name());
  return names;
}

Expected<CompiledModel> CompileGraph(Graph graph, const CompileOptions& options) {
  for (const std::string& name : options.disabled_passes) {
    const auto known = KnownPassNames();
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return InvalidArgument("disabled pass '" + name + "': no such pass (passes: " + list + ")");
    }
  }
  if (options.opt_level < 0 || options.opt_level > 3) {
    return InvalidArgument("opt_level must be 0..3, got " + std::to_string(options.opt_level));
  }
  if (options.streams < 1 || options.streams > kMaxStreams) {
    return InvalidArgument("streams must be 1.." + std::to_string(kMaxStreams) + ", got " +
                           std::to_string(options.streams));
  }
  PassManager pm(options);
  for (auto& p : DefaultPasses()) pm.Add(std::move(p));
  CompilePlan plan;
  KILN_RETURN_IF_ERROR(pm.Run(graph, plan));
  Status valid = ValidateExecutionPlan(graph, plan.plan);
  if (!valid.ok()) return Internal("the compiled execution plan is invalid: " + valid.message());
  CompiledModel out;
  out.graph = std::move(graph);
  out.plan = std::move(plan.plan);
  out.reports = pm.reports();
  out.memory = plan.memory;
  out.streams = plan.streams;
  out.payloads = std::move(plan.payloads);
  return out;
}

}  // namespace kiln
