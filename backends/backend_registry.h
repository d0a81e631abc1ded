// The backends built into this binary, in the order of the build's list (KILN_BACKEND_DIRS in
// CMakeLists.txt, written out by cmake/KilnBackends.cmake).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend.h"

namespace kiln {

// Every backend of this build; made on first use and never destroyed.
const std::vector<const Backend*>& Backends();

// The backend called `name` or one of its aliases; null when there is none. Whatever follows a
// ':' ("opencl:1") is the device and not part of the name.
const Backend* FindBackend(std::string_view name);

// "cpu, dsp, opencl": the names of Backends(), for messages.
std::string BackendNames();

// A backend this build leaves out, and the CMake option that builds it.
struct OmittedBackend {
  std::string_view name;
  std::string_view option;
  std::vector<std::string_view> names;  // its name and aliases
};

// The omitted backend called `name` (a device after ':' ignored); null when there is none.
const OmittedBackend* FindOmittedBackend(std::string_view name);

// Defined in the file cmake/KilnBackends.cmake writes (backends/backend_list.cc in the build
// tree): one factory call per backend of the list.
std::vector<std::unique_ptr<Backend>> MakeBuiltInBackends();
const std::vector<OmittedBackend>& OmittedBackends();

}  // namespace kiln
