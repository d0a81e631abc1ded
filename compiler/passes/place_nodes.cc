// Pass place-nodes (--target gpu): every node the OpenCL executor has a kernel for is placed
// on it ("opencl"), the rest on the CPU ("cpu"), before pack-weights packs each node's weights
// for the kernel that will run it. The runtime keeps these placements when the executor is
// present; `kiln inspect` lists the CPU fallbacks with their reasons (runtime/placement.h).
#include "compiler/passes/passes.h"
#include "kernels/kernel_registry.h"
#include "runtime/placement.h"

namespace kiln {
namespace {

class PlaceNodesPass : public Pass {
 public:
  std::string_view name() const override { return "place-nodes"; }
  std::string_view summary() const override {
    return "place nodes on the GPU where it has kernels, else on the CPU (--target gpu)";
  }
  int min_opt_level() const override { return 0; }
  bool Enabled(const CompileOptions& options) const override { return options.target_gpu; }
  Status Run(Graph& graph, PassContext& ctx) override {
    for (size_t n = 0; n < graph.num_nodes(); ++n) {
      Node& node = graph.node(static_cast<NodeId>(n));
      const bool gpu = !GpuFallbackReason(graph, node).has_value();
      node.placement = gpu ? kExecutorOpenCL : kExecutorCpu;
      ctx.Count(gpu ? "opencl" : "cpu");
    }
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakePlaceNodesPass() { return std::make_unique<PlaceNodesPass>(); }

}  // namespace kiln
