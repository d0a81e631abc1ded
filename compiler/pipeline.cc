// CompileGraph: pass pipeline, stream splitting, memory planning, the target backend's lowering,
// plan validation.
#include "compiler/pipeline.h"

#include <chrono>

#include "backends/backend_registry.h"
#include "compiler/passes/passes.h"

namespace kiln {
namespace {

constexpr const char* kStreamsStage = "streams";
constexpr const char* kMemoryStage = "memory-plan";
constexpr const char* kInPlaceStage = "memory-alias";  // disables in-place, views and slices
constexpr const char* kLowerStage = "lower";

double MsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

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
  p.push_back(MakePackDspWeightsPass());
  // Before the weights are packed: a convolution stored blocked packs its weights for the
  // NCHW8c kernels (Block16O) instead of Winograd's layout.
  p.push_back(MakeBlockedLayoutPass());
  p.push_back(MakePackWeightsPass());
  p.push_back(MakeWeightsF16Pass());
  return p;
}

std::vector<std::string> KnownPassNames() {
  std::vector<std::string> names;
  for (const auto& p : DefaultPasses()) names.emplace_back(p->name());
  names.emplace_back(kStreamsStage);
  names.emplace_back(kMemoryStage);
  names.emplace_back(kInPlaceStage);
  names.emplace_back(kLowerStage);
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
  PassManager pm(options);
  for (auto& p : DefaultPasses()) pm.Add(std::move(p));
  KILN_RETURN_IF_ERROR(pm.Run(graph));
  CompiledModel out;
  out.reports = pm.reports();

  const int64_t nodes = static_cast<int64_t>(graph.num_nodes());
  auto t0 = std::chrono::steady_clock::now();
  PassReport streams{kStreamsStage, true, "", nodes, nodes, 0, {}};
  const bool split = options.streams > 1 && !options.disabled_passes.count(kStreamsStage);
  if (split) {
    KILN_ASSIGN_OR_RETURN(out.plan.schedule, SplitStreams(graph, options.streams, &out.streams));
  } else {
    if (options.streams < 1 || options.streams > 16) {
      return InvalidArgument("streams must be 1..16, got " + std::to_string(options.streams));
    }
    out.plan.schedule = Schedule::Sequential(graph);
    if (options.streams > 1) streams.skipped_reason = "disabled";
  }
  streams.ran = split;
  if (!split && streams.skipped_reason.empty()) streams.skipped_reason = "1 stream";
  streams.ms = MsSince(t0);
  streams.counters = {{"streams", out.plan.schedule.num_streams},
                      {"events", static_cast<int64_t>(out.plan.schedule.events.size())}};
  out.reports.push_back(streams);

  t0 = std::chrono::steady_clock::now();
  PassReport memory{kMemoryStage, true, "", nodes, nodes, 0, {}};
  if (options.disabled_passes.count(kMemoryStage)) {
    out.plan.memory = MemoryPlan::NoReuse(graph);
    memory.ran = false;
    memory.skipped_reason = "disabled (no reuse)";
  }
  const bool alias = options.opt_level >= 1 && !options.disabled_passes.count(kInPlaceStage);
  const auto plan_memory = [&](const std::vector<std::pair<ValueId, NodeId>>& extra_reads,
                               MemoryPlanStats* stats) {
    MemoryPlannerOptions mo;
    mo.inplace = mo.views = mo.concat_slices = alias;
    mo.extra_reads = extra_reads;
    return PlanMemory(graph, out.plan.schedule, mo, stats);
  };
  if (memory.ran) {
    KILN_ASSIGN_OR_RETURN(out.plan.memory, plan_memory({}, &out.memory));
    memory.counters = {
        {"arena-kib", static_cast<int64_t>(out.memory.arena_bytes / 1024)},
        {"lower-bound-kib", static_cast<int64_t>(out.memory.lower_bound_bytes / 1024)},
        {"no-reuse-kib", static_cast<int64_t>(out.memory.no_reuse_bytes / 1024)},
        {"inplace", out.memory.inplace_ops},
        {"elided", out.memory.elided_views + out.memory.elided_concats}};
  }
  memory.ms = MsSince(t0);
  out.reports.push_back(memory);

  // The target backend's lowering, which may have the memory planned again under its own
  // lifetime constraints.
  t0 = std::chrono::steady_clock::now();
  PassReport lower{kLowerStage, true, "", nodes, nodes, 0, {}};
  const Backend* target =
      options.target_backend == kExecutorCpu ? nullptr : FindBackend(options.target_backend);
  if (!target) {
    lower.ran = false;
    lower.skipped_reason = "no target backend";
  } else if (options.disabled_passes.count(kLowerStage)) {
    lower.ran = false;
    lower.skipped_reason = "disabled";
  } else {
    MemoryPlanStats replanned;
    LoweringContext ctx{graph, out.plan, options.backend_options, nullptr, out.payloads, {}};
    if (memory.ran) {
      ctx.plan_memory = [&](const std::vector<std::pair<ValueId, NodeId>>& extra_reads) {
        return plan_memory(extra_reads, &replanned);
      };
    }
    const std::vector<int64_t> offsets_before = out.plan.memory.offsets;
    KILN_RETURN_IF_ERROR(
        target->Lower(ctx).WithContext("lowering for " + std::string(target->name())));
    if (out.plan.memory.offsets != offsets_before) {  // the memory plan the file carries now
      out.memory = replanned;
      lower.counters["arena-kib"] = static_cast<int64_t>(replanned.arena_bytes / 1024);
      lower.counters["lower-bound-kib"] = static_cast<int64_t>(replanned.lower_bound_bytes / 1024);
    }
    for (const auto& [name, n] : ctx.counters) lower.counters[name] = n;
  }
  lower.ms = MsSince(t0);
  out.reports.push_back(lower);
  Status valid = ValidateExecutionPlan(graph, out.plan);
  if (!valid.ok()) return Internal("the compiled execution plan is invalid: " + valid.message());
  out.graph = std::move(graph);
  return out;
}

}  // namespace kiln
