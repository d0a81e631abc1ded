// Options of the OpenCL (GPU) backend, carried by SessionOptions::backend_options. Plain data:
// no OpenCL types, so the CLI includes it whether or not the runtime was built with OpenCL.
#pragma once

#include <memory>
#include <string>

namespace kiln {

struct KernelBinaries;  // serializer/kernel_binaries.h: program binaries embedded in a model

enum class GpuPrecision {
  kFp32,  // f32 storage and arithmetic
  kFp16,  // f16 storage of activations and weights, f32 accumulation (docs/gpu.md)
};
inline const char* GpuPrecisionName(GpuPrecision p) {
  return p == GpuPrecision::kFp16 ? "fp16" : "fp32";
}

struct GpuOptions {
  // Device index among the chosen platform's devices, GPUs first ("opencl:N" / --device gpu:N).
  int device = 0;
  // When set: the first device whose name contains this (case-insensitive), on any platform
  // the platform filter admits; `device` is then ignored.
  std::string device_name;
  // Substring of the platform name to use; empty: $KILN_OPENCL_PLATFORM, else the first
  // platform that has a device.
  std::string platform;
  GpuPrecision precision = GpuPrecision::kFp32;
  // Program-binary and tuning cache folder; empty: $KILN_CACHE_DIR, else $XDG_CACHE_HOME/kiln,
  // else ~/.cache/kiln. "-" disables the disk cache.
  std::string cache_dir;
  // Work-group tuner: -1 tunes on GPU devices only (not on CPU OpenCL devices such as PoCL),
  // 0 never (per-device defaults), 1 always. $KILN_OPENCL_TUNE=0/1 overrides -1.
  int tune = -1;
  // Program binaries and tuning choices embedded in the (signed) model file, used when they
  // were made for this device, driver and kernel source: a cold start without JIT.
  std::shared_ptr<const KernelBinaries> binaries;
  // Compile time (--gpu-binaries-for): build and tune the programs of the compiled graph on the
  // device `device_name` selects, in both precisions, and embed them in the file.
  bool build_binaries = false;
};

}  // namespace kiln
