// GPU program binaries and tuner choices made on one device, embedded in a model file as the
// signed kernel-binaries section (kind 7, format 1.2) by `kiln compile --target gpu
// --gpu-binaries-for DEVICE`, and used by the OpenCL executor for a cold start without JIT.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "ir/status.h"

namespace kiln {

struct KernelBinaries {
  struct Program {
    std::string precision;    // "fp32" | "fp16"
    std::string source_hash;  // hex SHA-256 of the program source and build options
    std::vector<uint8_t> binary;
  };
  std::string device;    // CL_DEVICE_NAME
  std::string driver;    // CL_DRIVER_VERSION
  std::string platform;  // CL_PLATFORM_NAME
  std::vector<Program> programs;
  std::vector<std::pair<std::string, std::string>> tuning;  // tuner key -> choice
};

namespace format {
struct SectionBytes;
// Reader side (runtime): flatbuffers verification, then a copy of the contents.
Expected<KernelBinaries> ReadKernelBinaries(const SectionBytes& section);
// Writer side (toolchain, kernel_binaries_writer.cc).
std::vector<uint8_t> WriteKernelBinariesSection(const KernelBinaries& binaries);
}  // namespace format

}  // namespace kiln
