// Executor names -> executors.
#include "runtime/executor_factory.h"

#include <cstdlib>

#include "runtime/dsp/dsp_executor.h"

#ifdef KILN_WITH_OPENCL
#include "runtime/opencl/opencl_executor.h"
#endif

namespace kiln {

const char* GpuPrecisionName(GpuPrecision p) { return p == GpuPrecision::kFp16 ? "fp16" : "fp32"; }

Expected<std::unique_ptr<Executor>> MakeExecutor(const std::string& name,
                                                 const SessionOptions& options, ThreadPool* pool) {
  if (name == kExecutorCpu) return MakeCpuExecutor(options.cpu_max_isa, pool);
  if (name == kExecutorDsp) return MakeDspExecutor(options.dsp);
  std::string base = name, index;
  if (const size_t colon = name.find(':'); colon != std::string::npos) {
    base = name.substr(0, colon);
    index = name.substr(colon + 1);
  }
  if (base == kExecutorOpenCL || base == "gpu") {
    GpuOptions gpu = options.gpu;
    if (!index.empty()) {
      if (index.size() > 3 || index.find_first_not_of("0123456789") != std::string::npos) {
        return InvalidArgument("executor '" + name + "': expected " + base +
                               ":N, N a device index");
      }
      gpu.device = std::atoi(index.c_str());
    }
#ifdef KILN_WITH_OPENCL
    return MakeOpenClExecutor(gpu);
#else
    return NotFound("executor '" + name + "': this runtime was built without OpenCL");
#endif
  }
  return InvalidArgument("unknown executor '" + name + "' (expected cpu, dsp, opencl[:N] or gpu[:N])");
}

}  // namespace kiln
