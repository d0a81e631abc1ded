// The CPU executor: host memory, kernels from the registry (the CPU backend's and the reference
// ones).
#pragma once

#include <memory>

#include "backends/executor.h"

namespace kiln {

// `max_isa` caps which kernel flavours it picks (kReference = the oracle), lowered to what this
// CPU runs; its kernels split work over `pool` (the session's; may be null: everything inline).
std::unique_ptr<Executor> MakeCpuExecutor(Isa max_isa = Isa::kReference,
                                          ThreadPool* pool = nullptr);

}  // namespace kiln
