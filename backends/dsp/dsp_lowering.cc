// Command streams and fused chains for a compiled plan. A chain runs when its last member runs,
// so the inputs its earlier members read must still hold their bytes then: chains the plan
// rules out are either dropped or, when they save estimated cycles, kept by asking the
// compiler's memory planner for a plan that keeps those inputs live until the chain's end.
#include "backends/dsp/dsp_lowering.h"

#include <optional>
#include <utility>

#include "backends/dsp/dsp_options.h"
#include "backends/dsp/kernels/dsp_chain.h"
#include "backends/dsp/kernels/dsp_op.h"

namespace kiln {
namespace {

std::vector<bool> ElidedNodes(const Graph& graph, const MemoryPlan& memory) {
  std::vector<bool> elided(graph.num_nodes(), false);
  for (NodeId e : memory.elided) elided[static_cast<size_t>(e)] = true;
  return elided;
}

// The values a chain reads when its last member runs besides that member's own inputs
// (DspChainEarlyInputs).
std::vector<ValueId> ChainEarlyInputs(const Graph& graph, std::span<const int32_t> members) {
  const std::vector<ValueId> operands = DspChainOperands(graph, members);
  std::vector<ValueId> out;
  for (size_t i : DspChainEarlyInputs(graph, members)) {
    if (operands[i] != kNoValue) out.push_back(operands[i]);
  }
  return out;
}

// Whether a chain's output shares no memory with its early inputs under `plan` (one stream:
// nothing else runs between the consecutive members).
std::function<bool(std::span<const int32_t>)> ChainFitsPlan(const Graph& graph,
                                                            const ExecutionPlan& plan) {
  return [&graph, &plan](std::span<const int32_t> members) {
    if (plan.schedule.num_streams != 1) return false;
    auto range = [&](ValueId v) -> std::optional<std::pair<int64_t, int64_t>> {
      if (v == kNoValue || static_cast<size_t>(v) >= plan.memory.offsets.size()) return {};
      const int64_t off = plan.memory.offsets[static_cast<size_t>(v)];
      if (off < 0) return {};  // not in the arena: graph inputs, outputs and constants
      return std::make_pair(off, off + static_cast<int64_t>(graph.value(v).byte_size()));
    };
    for (ValueId y : graph.node(members.back()).outputs) {
      const auto out = range(y);
      if (!out) continue;
      for (ValueId x : ChainEarlyInputs(graph, members)) {
        const auto in = range(x);
        if (in && in->first < out->second && out->first < in->second) return false;
      }
    }
    return true;
  };
}

DspProgramSet Plan(LoweringContext& ctx, uint32_t scratch, bool* vetoed) {
  const auto fits = ChainFitsPlan(ctx.graph, ctx.plan);
  return PlanDspPrograms(ctx.graph, ElidedNodes(ctx.graph, ctx.plan.memory), scratch,
                         [&](std::span<const int32_t> members) {
                           const bool ok = fits(members);
                           *vetoed = *vetoed || !ok;
                           return ok;
                         });
}

}  // namespace

Status LowerDspPrograms(LoweringContext& ctx) {
  const Graph& graph = ctx.graph;
  const uint32_t scratch = ctx.options.Get<DspOptions>().scratch_bytes;
  bool vetoed = false;
  DspProgramSet set = Plan(ctx, scratch, &vetoed);
  int64_t replanned = 0;
  if (ctx.plan.schedule.num_streams == 1 && vetoed && ctx.plan_memory) {
    const DspProgramSet wanted =
        PlanDspPrograms(graph, ElidedNodes(graph, ctx.plan.memory), scratch,
                        [](std::span<const int32_t>) { return true; });
    const int64_t cycles = DspProgramSetCycles(graph, set);
    if (DspProgramSetCycles(graph, wanted) < cycles) {
      std::vector<std::pair<ValueId, NodeId>> extra_reads;
      for (const auto& [last, chain] : wanted.chains) {
        for (ValueId x : ChainEarlyInputs(graph, chain.members)) extra_reads.emplace_back(x, last);
      }
      auto memory = ctx.plan_memory(extra_reads);
      if (memory.ok()) {
        ExecutionPlan candidate = ctx.plan;
        candidate.memory = std::move(memory).value();
        if (ValidateExecutionPlan(graph, candidate).ok()) {
          DspProgramSet more = PlanDspPrograms(graph, ElidedNodes(graph, candidate.memory), scratch,
                                               ChainFitsPlan(graph, candidate));
          if (DspProgramSetCycles(graph, more) < cycles) {
            ctx.plan = std::move(candidate);
            set = std::move(more);
            replanned = 1;
          }
        }
      }
    }
  }
  ctx.counters.emplace_back("dsp-streams", static_cast<int64_t>(set.by_node.size()));
  ctx.counters.emplace_back("dsp-chains", static_cast<int64_t>(set.chains.size()));
  ctx.counters.emplace_back("memory-replanned", replanned);
  ctx.payloads.dsp_programs = std::make_shared<const DspProgramSet>(std::move(set));
  return Status::Ok();
}

}  // namespace kiln
