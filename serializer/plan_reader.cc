// Flatbuffers decoding of the memory plan and the schedule, behind the Verifier.
#include "serializer/plan_reader.h"

#include "serializer/kiln_model_generated.h"

namespace kiln::format {

Expected<MemoryPlan> ReadMemoryPlan(const SectionBytes& section) {
  flatbuffers::Verifier verifier(section.data, section.size);
  if (!verifier.VerifyBuffer<fb::MemoryPlan>(nullptr)) {
    return DataLoss("schema: memory-plan section fails flatbuffers verification");
  }
  const auto* fp = flatbuffers::GetRoot<fb::MemoryPlan>(section.data);
  MemoryPlan p;
  p.arena_bytes = fp->arena_bytes();
  if (fp->offsets()) p.offsets.assign(fp->offsets()->begin(), fp->offsets()->end());
  if (fp->inplace_of()) p.inplace_of.assign(fp->inplace_of()->begin(), fp->inplace_of()->end());
  if (fp->elided()) p.elided.assign(fp->elided()->begin(), fp->elided()->end());
  return p;
}

Expected<Schedule> ReadSchedule(const SectionBytes& section) {
  flatbuffers::Verifier verifier(section.data, section.size);
  if (!verifier.VerifyBuffer<fb::Schedule>(nullptr)) {
    return DataLoss("schema: streams section fails flatbuffers verification");
  }
  const auto* fs = flatbuffers::GetRoot<fb::Schedule>(section.data);
  Schedule s;
  s.num_streams = fs->num_streams();
  if (fs->stream()) s.stream.assign(fs->stream()->begin(), fs->stream()->end());
  if (fs->events()) {
    for (const fb::StreamEvent* e : *fs->events()) s.events.push_back({e->signal(), e->wait()});
  }
  return s;
}

}  // namespace kiln::format
