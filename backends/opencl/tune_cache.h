// The work-group tuner's memory: choices per (precision, kernel, shape) for one device and
// driver, loaded from the model's embedded section and from the cache folder, and appended to
// the cache file as new choices are made. A file for another driver is stale and replaced.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "backends/opencl/opencl_device.h"
#include "serializer/kernel_binaries.h"

namespace kiln::opencl {

class TuneCache {
 public:
  TuneCache(const DeviceInfo& device, const std::string& cache_dir, const KernelBinaries* embedded);
  std::optional<std::string> Find(const std::string& key) const;
  void Record(const std::string& key, const std::string& value);
  // Every choice known for this device (for embedding into a model).
  std::map<std::string, std::string> All() const;

 private:
  std::string path_;
  std::string header_;
  mutable std::mutex mu_;
  std::map<std::string, std::string> choices_;
};

}  // namespace kiln::opencl
