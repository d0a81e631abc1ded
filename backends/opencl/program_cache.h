// Building the Kiln OpenCL program for a device, fastest source first: binaries embedded in
// the (signed) model file for this device, then the on-disk cache, then the JIT compiler,
// whose result is cached. Every binary is keyed by device name, driver version and the hash of
// the kernel source plus build options; a cache file made for another driver or source is
// detected as stale, logged and rebuilt.
#pragma once

#include <string>
#include <vector>

#include "backends/opencl/gpu_options.h"
#include "backends/opencl/opencl_device.h"
#include "serializer/kernel_binaries.h"

namespace kiln::opencl {

// The cache folder for these options ("" when caching is off): GpuOptions::cache_dir, else
// $KILN_CACHE_DIR, $XDG_CACHE_HOME/kiln, ~/.cache/kiln. Created (mode 0700) on demand.
std::string ResolveCacheDir(const std::string& configured);

struct ProgramSource {
  std::string text;
  std::string options;
  std::string hash;  // hex SHA-256 of options + text
  GpuPrecision precision = GpuPrecision::kFp32;
};
ProgramSource MakeProgramSource(GpuPrecision precision);

struct BuiltProgram {
  cl_program program = nullptr;  // owned by the caller
  std::string origin;            // "embedded", "cache" or "jit"
  double ms = 0;                 // time to get a usable program
};

Expected<BuiltProgram> BuildProgram(cl_context context, const DeviceInfo& device,
                                    const ProgramSource& source, const std::string& cache_dir,
                                    const KernelBinaries* embedded);

// The program's device binary (CL_PROGRAM_BINARIES).
Expected<std::vector<uint8_t>> ProgramBinary(cl_program program);

}  // namespace kiln::opencl
