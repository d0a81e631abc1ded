// Tuner choices on disk: a header line naming device and driver, then "key<TAB>value" lines.
#include "backends/opencl/tune_cache.h"

#include <fstream>

#include "backends/opencl/cl_log.h"

namespace kiln::opencl {

TuneCache::TuneCache(const DeviceInfo& device, const std::string& cache_dir,
                     const KernelBinaries* embedded) {
  header_ = "# kiln opencl tuning\t" + device.name + "\t" + device.driver;
  if (embedded && embedded->device == device.name && embedded->driver == device.driver) {
    for (const auto& [k, v] : embedded->tuning) choices_[k] = v;
  }
  if (cache_dir.empty()) return;
  path_ = cache_dir + "/opencl-" + SanitizeName(device.name) + ".tune";
  std::ifstream in(path_);
  std::string line;
  if (in && std::getline(in, line)) {
    if (line == header_) {
      while (std::getline(in, line)) {
        const size_t tab = line.find('\t');
        if (tab != std::string::npos) choices_.emplace(line.substr(0, tab), line.substr(tab + 1));
      }
      return;
    }
    ClLog().warn("stale tuning cache {} (made for another device or driver): starting afresh",
                 path_);
  }
  std::ofstream out(path_, std::ios::trunc);  // new (or stale) file: start it
  if (!out) return;
  out << header_ << "\n";
  for (const auto& [k, v] : choices_) out << k << "\t" << v << "\n";
}

std::optional<std::string> TuneCache::Find(const std::string& key) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = choices_.find(key);
  if (it == choices_.end()) return std::nullopt;
  return it->second;
}

void TuneCache::Record(const std::string& key, const std::string& value) {
  std::lock_guard<std::mutex> lock(mu_);
  choices_[key] = value;
  ClLog().debug("tuned {}: {}", key, value);
  if (path_.empty()) return;
  std::ofstream out(path_, std::ios::app);
  if (out) out << key << "\t" << value << "\n";
}

std::map<std::string, std::string> TuneCache::All() const {
  std::lock_guard<std::mutex> lock(mu_);
  return choices_;
}

}  // namespace kiln::opencl
