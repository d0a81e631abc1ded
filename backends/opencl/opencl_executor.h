// The OpenCL GPU executor: one context on the selected device, one in-order queue per schedule
// stream (markers and barriers order work across streams), buffers whose regions are
// (cl_mem, offset) handles so that one arena buffer per session serves every planned value,
// f16 storage of f32 tensors in fp16 precision (converted at the host boundary), per-step
// profiling from event timestamps, and the program/tuning caches.
#pragma once

#include <memory>

#include "ir/execution_plan.h"
#include "backends/executor.h"
#include "backends/opencl/gpu_options.h"
#include "serializer/kernel_binaries.h"

namespace kiln {

// NotFound when there is no OpenCL platform or device (the session then runs on the CPU).
Expected<std::unique_ptr<Executor>> MakeOpenClExecutor(const GpuOptions& options);

// What an OpenCL executor reports about itself (for `kiln bench` and `kiln run` lines).
struct OpenClExecutorInfo {
  std::string device;          // DeviceInfo::Describe()
  std::string program_origin;  // "embedded", "cache" or "jit"
  double program_ms = 0;       // time to get the program
  std::string precision;       // "fp32" | "fp16"
};
// Null when `executor` is not an OpenCL executor.
const OpenClExecutorInfo* GetOpenClExecutorInfo(const Executor& executor);

// Builds the OpenCL program on the device `options` select for every precision given, creates
// (and so tunes) the kernels of every node of `graph` that the GPU can run, and returns the
// program binaries and tuning choices, to embed in a model file for that device.
Expected<KernelBinaries> BuildKernelBinaries(const Graph& graph, const GpuOptions& options,
                                             const std::vector<GpuPrecision>& precisions);

}  // namespace kiln
