// Makes executors by name for sessions, through the build's backends (backends/backend_registry.h):
// "cpu", "dsp", "opencl" / "opencl:N" (aliases "gpu", "gpu:N") where the runtime has them.
// Names come from SessionOptions::executors.
#pragma once

#include <memory>
#include <string>

#include "backends/executor.h"
#include "runtime/session.h"

namespace kiln {

// NotFound when the executor's device is absent (no OpenCL platform or device): the session
// then goes on without it. InvalidArgument for a name no backend of this build has.
Expected<std::unique_ptr<Executor>> MakeExecutor(const std::string& name,
                                                 const SessionOptions& options, ThreadPool* pool);

}  // namespace kiln
