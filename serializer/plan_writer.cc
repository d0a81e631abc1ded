// Flatbuffers encoding of the memory plan and the schedule.
#include "serializer/plan_writer.h"

#include "serializer/kiln_model_generated.h"

namespace kiln::format {

std::vector<uint8_t> WriteMemoryPlanSection(const MemoryPlan& plan) {
  flatbuffers::FlatBufferBuilder b(1024);
  auto root = fb::CreateMemoryPlan(b, plan.arena_bytes, b.CreateVector(plan.offsets),
                                   b.CreateVector(plan.inplace_of), b.CreateVector(plan.elided));
  b.Finish(root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

std::vector<uint8_t> WriteScheduleSection(const Schedule& schedule) {
  flatbuffers::FlatBufferBuilder b(1024);
  std::vector<fb::StreamEvent> events;
  for (const auto& e : schedule.events) events.emplace_back(e.signal, e.wait);
  auto root = fb::CreateSchedule(b, schedule.num_streams, b.CreateVector(schedule.stream),
                                 b.CreateVectorOfStructs(events));
  b.Finish(root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

}  // namespace kiln::format
