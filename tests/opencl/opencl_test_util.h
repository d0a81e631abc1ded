// Helpers of the OpenCL tests (ctest -L opencl): whether a device exists, and running a graph
// on the GPU executor (CPU fallback included) for comparison with the reference executor.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backends/opencl/gpu_options.h"
#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"
#include "runtime/session.h"

namespace kiln::testing {

// True when an OpenCL device exists (PoCL in CI). Tests skip, saying so, when not.
bool HaveOpenClDevice();

struct GpuRun {
  std::vector<HostTensor> outputs;
  std::vector<std::string> placement;  // Session::Placement()
  std::vector<std::string> warnings;
};

// Runs `graph` with executors {"opencl", "cpu"} (or `executors`) and `gpu` options.
GpuRun RunOnGpu(const Graph& graph, const std::vector<HostTensor>& inputs,
                const GpuOptions& gpu = {}, std::shared_ptr<const ExecutionPlan> plan = nullptr,
                int threads = 1, std::vector<std::string> executors = {"opencl", "cpu"});

// Every non-elided node ran on the GPU.
void ExpectAllOnGpu(const GpuRun& run);

}  // namespace kiln::testing
