// Makes executors by name for sessions: "cpu", and "opencl" / "opencl:N" (aliases "gpu",
// "gpu:N") when the runtime is built with OpenCL. Names come from SessionOptions::executors.
#pragma once

#include <memory>
#include <string>

#include "runtime/executor.h"
#include "runtime/session.h"

namespace kiln {

// NotFound when the executor's device is absent (no OpenCL platform or device): the session
// then goes on without it. InvalidArgument for an unknown name.
Expected<std::unique_ptr<Executor>> MakeExecutor(const std::string& name,
                                                 const SessionOptions& options, ThreadPool* pool);

}  // namespace kiln
