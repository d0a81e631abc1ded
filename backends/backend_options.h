// Per-backend options, by type: each backend defines its own plain struct (GpuOptions,
// DspOptions, ...) in its folder, and sessions and compiles carry them here without the core
// naming any backend.
#pragma once

#include <any>
#include <map>
#include <typeindex>

namespace kiln {

class BackendOptions {
 public:
  // The options of type T, made with their defaults on first use (to set them).
  template <typename T>
  T& Mutable() {
    std::any& slot = slots_[std::type_index(typeid(T))];
    if (!slot.has_value()) slot = T{};
    return *std::any_cast<T>(&slot);
  }
  // A copy of the options of type T; their defaults when never set.
  template <typename T>
  T Get() const {
    const auto it = slots_.find(std::type_index(typeid(T)));
    return it == slots_.end() ? T{} : *std::any_cast<T>(&it->second);
  }

 private:
  std::map<std::type_index, std::any> slots_;  // value semantics: copies copy every struct
};

}  // namespace kiln
