// Plan pass streams (CompileOptions::streams > 1): the schedule, the graph split into streams
// with the events between them (compiler/streams/stream_splitter.h). Skipped, it leaves the
// sequential schedule: one stream in the graph's order.
#include "compiler/passes/passes.h"

namespace kiln {
namespace {

class StreamsPass : public Pass {
 public:
  std::string_view name() const override { return "streams"; }
  std::string_view summary() const override {
    return "split the schedule into streams that run concurrently (--streams N > 1)";
  }
  int min_opt_level() const override { return 0; }
  bool Enabled(const CompileOptions& options) const override { return options.streams > 1; }
  std::string_view not_enabled_reason() const override { return "1 stream"; }

  Status Run(Graph& graph, PassContext& ctx) override {
    CompilePlan& plan = ctx.plan();
    KILN_ASSIGN_OR_RETURN(plan.plan.schedule,
                          SplitStreams(graph, ctx.options().streams, &plan.streams));
    ctx.Count("streams", plan.plan.schedule.num_streams);
    ctx.Count("events", static_cast<int64_t>(plan.plan.schedule.events.size()));
    return Status::Ok();
  }
  Status RunSkipped(Graph& graph, PassContext& ctx) override {
    ctx.plan().plan.schedule = Schedule::Sequential(graph);
    return Status::Ok();
  }
};

}  // namespace

std::unique_ptr<Pass> MakeStreamsPass() { return std::make_unique<StreamsPass>(); }

}  // namespace kiln
