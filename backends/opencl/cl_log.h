// The OpenCL executor's log: program builds, cache hits and misses, stale caches, tuning.
// Writes to stderr (stdout stays the commands' output); $KILN_LOG_LEVEL (debug, info, warn,
// error, off; default info) sets the level.
#pragma once

#include <spdlog/spdlog.h>

namespace kiln::opencl {

spdlog::logger& ClLog();

}  // namespace kiln::opencl
