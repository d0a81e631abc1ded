// Flatbuffers decoding of the kernel-binaries section, behind the Verifier.
#include "serializer/kernel_binaries.h"

#include "serializer/container_reader.h"
#include "serializer/kiln_model_generated.h"

namespace kiln::format {
namespace {

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

}  // namespace

Expected<KernelBinaries> ReadKernelBinaries(const SectionBytes& section) {
  flatbuffers::Verifier verifier(section.data, section.size);
  if (!verifier.VerifyBuffer<fb::KernelBinaries>(nullptr)) {
    return DataLoss("schema: kernel-binaries section fails flatbuffers verification");
  }
  const auto* fk = flatbuffers::GetRoot<fb::KernelBinaries>(section.data);
  KernelBinaries k;
  k.device = Str(fk->device());
  k.driver = Str(fk->driver());
  k.platform = Str(fk->platform());
  if (fk->programs()) {
    for (const fb::GpuProgram* p : *fk->programs()) {
      KernelBinaries::Program prog;
      prog.precision = Str(p->precision());
      prog.source_hash = Str(p->source_hash());
      if (p->binary()) prog.binary.assign(p->binary()->begin(), p->binary()->end());
      k.programs.push_back(std::move(prog));
    }
  }
  if (fk->tuning()) {
    for (const fb::GpuTuning* t : *fk->tuning())
      k.tuning.emplace_back(Str(t->key()), Str(t->value()));
  }
  return k;
}

}  // namespace kiln::format
