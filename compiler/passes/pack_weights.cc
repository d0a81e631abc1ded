// Pass pack-weights: each backend of the compile (the CPU, and the target backend) rewrites the
// constant weights of the nodes placed on it into the layouts its kernels bind in place
// (Backend::PackWeights: the CPU and OpenCL kernels' registered layouts, the DSP's kDspK4), so
// the runtime binds them from the file without repacking at load.
#include <algorithm>
#include <map>

#include "backends/backend_registry.h"
#include "compiler/passes/passes.h"
#include "ir/rewriter.h"

namespace kiln {
namespace {

// The compile's backends that pack: the CPU (every node no other backend took), then the
// target backend.
std::vector<const Backend*> PackingBackends(const CompileOptions& options) {
  std::vector<const Backend*> backends;
  for (const std::string& name : {std::string(kExecutorCpu), options.target_backend}) {
    const Backend* b = FindBackend(name);
    if (!b || std::find(backends.begin(), backends.end(), b) != backends.end()) continue;
    if (b->PacksWeights(options.target_isa)) backends.push_back(b);
  }
  return backends;
}

class PackWeightsPass : public Pass {
 public:
  std::string_view name() const override { return "pack-weights"; }
  std::string_view summary() const override {
    return "pack constant weights into the layouts the backends' kernels bind in place";
  }
  int min_opt_level() const override { return 2; }
  bool Enabled(const CompileOptions& options) const override {
    return !PackingBackends(options).empty();
  }
  Status Run(Graph& graph, PassContext& ctx) override {
    GraphRewriter rw(graph);
    std::map<std::string, int64_t> counters;
    for (const Backend* backend : PackingBackends(ctx.options())) {
      WeightPackingContext packing{rw, ctx.options().target_isa, ctx.options().backend_options,
                                   counters};
      KILN_RETURN_IF_ERROR(backend->PackWeights(packing).WithContext("packing weights for " +
                                                                     std::string(backend->name())));
    }
    for (const auto& [counter, n] : counters) ctx.Count(counter, n);
    return rw.Commit();
  }
};

}  // namespace

std::unique_ptr<Pass> MakePackWeightsPass() { return std::make_unique<PackWeightsPass>(); }

}  // namespace kiln
