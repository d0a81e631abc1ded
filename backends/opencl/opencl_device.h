// OpenCL platform and device discovery for the GPU executor: which platform (a name filter,
// KILN_OPENCL_PLATFORM), which device (an index, GPUs first), and what the device offers.
#pragma once

#include <string>
#include <vector>

#include "backends/opencl/kernels/cl_kernel.h"

namespace kiln::opencl {

struct DeviceInfo {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  std::string platform_name;
  std::string name;
  std::string vendor;
  std::string driver;   // CL_DRIVER_VERSION
  std::string version;  // CL_DEVICE_VERSION
  bool is_gpu = false;
  bool has_fp16 = false;  // cl_khr_fp16 (f16 arithmetic; f16 storage needs no extension)
  int compute_units = 1;
  size_t max_work_group_size = 256;
  uint64_t global_mem = 0;
  uint64_t local_mem = 0;
  std::string Describe() const;  // "NVIDIA H100 80GB HBM3 (NVIDIA CUDA, driver 580.x)"
};

// Every device of every platform (for `kiln inspect --devices`-style listings and errors).
Expected<std::vector<DeviceInfo>> ListDevices();

// The device to run on: platform names containing `platform_filter` (case-insensitive; empty
// means $KILN_OPENCL_PLATFORM, else any), the first platform with a device, its device
// `index` with GPUs numbered first. NotFound, naming what exists, when there is none.
// With a non-empty `name_filter`, the first device whose name contains it instead.
Expected<DeviceInfo> SelectDevice(const std::string& platform_filter, int index,
                                  const std::string& name_filter = "");

// Lowercase, [a-z0-9] and '-', for file names.
std::string SanitizeName(const std::string& s);

}  // namespace kiln::opencl
