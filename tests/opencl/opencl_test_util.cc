// OpenCL test helpers.
#include "tests/opencl/opencl_test_util.h"

#include <gtest/gtest.h>

#include "backends/opencl/opencl_device.h"

namespace kiln::testing {

bool HaveOpenClDevice() {
  static const bool have = opencl::SelectDevice("", 0).ok();
  return have;
}

GpuRun RunOnGpu(const Graph& graph, const std::vector<HostTensor>& inputs, const GpuOptions& gpu,
                std::shared_ptr<const ExecutionPlan> plan, int threads,
                std::vector<std::string> executors) {
  GpuRun run;
  SessionOptions options;
  options.executors = std::move(executors);
  options.backend_options.Mutable<GpuOptions>() = gpu;
  options.num_threads = threads;
  auto session = Session::Create(std::make_shared<const Graph>(graph), options, std::move(plan));
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return run;
  run.placement = (*session)->Placement();
  run.warnings = (*session)->warnings();
  auto outs = (*session)->Run(inputs);
  EXPECT_TRUE(outs.ok()) << outs.status().ToString();
  if (outs.ok()) run.outputs = std::move(outs).value();
  return run;
}

void ExpectAllOnGpu(const GpuRun& run) {
  for (size_t n = 0; n < run.placement.size(); ++n) {
    EXPECT_TRUE(run.placement[n] == "opencl" || run.placement[n] == "-")
        << "node " << n << " ran on " << run.placement[n];
  }
}

}  // namespace kiln::testing
