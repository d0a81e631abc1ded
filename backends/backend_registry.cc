// The build's backends, made once from the generated list.
#include "backends/backend_registry.h"

namespace kiln {

const std::vector<const Backend*>& Backends() {
  // Leaked on purpose: executors and kernels made by a backend may outlive static destruction.
  static const std::vector<const Backend*>* backends = [] {
    auto* list = new std::vector<const Backend*>();
    for (std::unique_ptr<Backend>& b : MakeBuiltInBackends()) list->push_back(b.release());
    return list;
  }();
  return *backends;
}

const Backend* FindBackend(std::string_view name) {
  name = name.substr(0, name.find(':'));
  for (const Backend* b : Backends()) {
    if (b->name() == name) return b;
    for (std::string_view alias : b->aliases()) {
      if (alias == name) return b;
    }
  }
  return nullptr;
}

const OmittedBackend* FindOmittedBackend(std::string_view name) {
  name = name.substr(0, name.find(':'));
  for (const OmittedBackend& b : OmittedBackends()) {
    for (std::string_view n : b.names) {
      if (n == name) return &b;
    }
  }
  return nullptr;
}

std::string BackendNames() {
  std::string out;
  for (const Backend* b : Backends()) out += (out.empty() ? "" : ", ") + std::string(b->name());
  return out;
}

}  // namespace kiln
