// The CPU backend: claims every node the registry has a CPU kernel for (the reference kernels
// cover every op Kiln imports), costed by a simple throughput model, and makes the host executor.
#include <algorithm>

#include "backends/backend.h"
#include "backends/cost_placement.h"
#include "backends/cpu/cpu_executor.h"
#include "backends/kernel_weight_packing.h"
#include "kernels/kernel_registry.h"

namespace kiln {
namespace {

// One core's throughput for the cost placement; the accelerators' models are relative to it.
constexpr double kMacsPerUs = 16000;  // int8/f32 multiply-accumulates per microsecond
constexpr double kElemsPerUs = 4000;  // element operations per microsecond
constexpr double kNodeUs = 1;         // fixed cost per kernel

class CpuBackend : public Backend {
 public:
  std::string_view name() const override { return kExecutorCpu; }

  NodeClaim Claim(const Graph& graph, const Node& node, const BackendOptions&) const override {
    if (!KernelRegistry::Global().Find(graph, node, kExecutorCpu, kBestCpuIsa)) {
      return NodeClaim::Refused("no CPU kernel for " + std::string(OpTypeName(node.op)) + " (" +
                                std::string(DTypeName(KernelRegistry::DispatchDType(graph, node))) +
                                ")");
    }
    const NodeWork w = EstimateNodeWork(graph, node);
    return NodeClaim::Claimed(kNodeUs + w.macs / kMacsPerUs + w.elems / kElemsPerUs);
  }

  // The reference kernels read plain weights; every faster flavour packs (a file packed for one
  // ISA still runs on a CPU without it: each packed layout has a portable kernel).
  bool PacksWeights(Isa target_isa) const override { return target_isa != Isa::kReference; }
  Status PackWeights(WeightPackingContext& ctx) const override {
    if (ctx.target_isa == Isa::kReference) return Status::Ok();
    return PackWeightsForKernels(ctx, kExecutorCpu, ctx.target_isa);
  }

  Expected<std::unique_ptr<Executor>> MakeExecutor(const ExecutorRequest& r) const override {
    if (!r.device.empty()) {
      return InvalidArgument("executor '" + r.requested + "': the CPU has no devices to choose");
    }
    return MakeCpuExecutor(r.cpu_max_isa, r.pool);
  }
};

}  // namespace

std::unique_ptr<Backend> MakeCpuBackend() { return std::make_unique<CpuBackend>(); }

}  // namespace kiln
