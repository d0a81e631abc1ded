// Decodes the memory-plan and streams sections (runtime side). Structure only: the loader
// then runs ValidateExecutionPlan against the graph before anything uses the plan.
#pragma once

#include "ir/execution_plan.h"
#include "serializer/container_reader.h"

namespace kiln::format {

Expected<MemoryPlan> ReadMemoryPlan(const SectionBytes& section);
Expected<Schedule> ReadSchedule(const SectionBytes& section);

}  // namespace kiln::format
