// A read-only memory mapping of a whole file (RAII): model weights are used in place from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "ir/status.h"

namespace kiln {

class MappedFile {
 public:
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // Maps `path` read-only (private). An empty file maps to size 0.
  static Expected<std::shared_ptr<const MappedFile>> Open(const std::string& path);

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // Drops the whole pages inside [p, p + n) from this process's memory (MADV_DONTNEED): the
  // mapping stays valid, a later read faults the page in again from the file. For a loader
  // that has copied those bytes and will not read them again.
  void Release(const uint8_t* p, size_t n) const;

 private:
  MappedFile() = default;
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace kiln
