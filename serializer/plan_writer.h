// Encodes an execution plan into the memory-plan and streams sections (toolchain side).
#pragma once

#include <cstdint>
#include <vector>

#include "ir/execution_plan.h"

namespace kiln::format {

std::vector<uint8_t> WriteMemoryPlanSection(const MemoryPlan& plan);
std::vector<uint8_t> WriteScheduleSection(const Schedule& schedule);

}  // namespace kiln::format
