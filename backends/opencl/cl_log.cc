// The OpenCL executor's stderr logger.
#include "backends/opencl/cl_log.h"

#include <spdlog/sinks/stdout_sinks.h>

#include <cstdlib>

namespace kiln::opencl {

spdlog::logger& ClLog() {
  static std::shared_ptr<spdlog::logger> log = [] {
    auto l = std::make_shared<spdlog::logger>("kiln.opencl",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
    l->set_pattern("kiln opencl %l: %v");
    const char* env = std::getenv("KILN_LOG_LEVEL");
    l->set_level(env ? spdlog::level::from_str(env) : spdlog::level::info);
    return l;
  }();
  return *log;
}

}  // namespace kiln::opencl
