// Plan pass memory-alias: lets the memory plan alias buffers, beyond reusing them by lifetime:
// elementwise ops (and FusedConv's residual) write over an input, Reshape-like ops share their
// input's buffer and are elided, Concat inputs are written into their slices. Skipped (opt
// level 0, or disabled to bisect a miscompile), every value keeps a range of its own while live.
#include "compiler/passes/passes.h"

namespace kiln {
namespace {

class MemoryAliasPass : public Pass {
 public:
  std::string_view name() const override { return "memory-alias"; }
  std::string_view summary() const override {
    return "let the memory plan run ops in place and elide views and Concats";
  }
  int min_opt_level() const override { return 1; }
  Status Run(Graph&, PassContext& ctx) override {
    MemoryPlannerOptions& memory = ctx.plan().memory_options;
    memory.inplace = memory.views = memory.concat_slices = true;
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeMemoryAliasPass() { return std::make_unique<MemoryAliasPass>(); }

}  // namespace kiln
