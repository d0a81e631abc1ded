// Flatbuffers encoding of the kernel-binaries section (toolchain side).
#include "serializer/kernel_binaries.h"
#include "serializer/kiln_model_generated.h"

namespace kiln::format {

std::vector<uint8_t> WriteKernelBinariesSection(const KernelBinaries& k) {
  flatbuffers::FlatBufferBuilder b(1 << 16);
  std::vector<flatbuffers::Offset<fb::GpuProgram>> programs;
  for (const auto& p : k.programs) {
    programs.push_back(fb::CreateGpuProgram(
        b, b.CreateString(p.precision), b.CreateString(p.source_hash), b.CreateVector(p.binary)));
  }
  std::vector<flatbuffers::Offset<fb::GpuTuning>> tuning;
  for (const auto& [key, value] : k.tuning) {
    tuning.push_back(fb::CreateGpuTuning(b, b.CreateString(key), b.CreateString(value)));
  }
  auto root = fb::CreateKernelBinaries(b, b.CreateString(k.device), b.CreateString(k.driver),
                                       b.CreateString(k.platform), b.CreateVector(programs),
                                       b.CreateVector(tuning));
  b.Finish(root);
  return {b.GetBufferPointer(), b.GetBufferPointer() + b.GetSize()};
}

}  // namespace kiln::format
