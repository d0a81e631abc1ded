# The backends built into this tree (docs/architecture.md, "Adding a backend"). Each backend is
# one folder with a backend.cmake that calls kiln_add_backend; the top-level CMakeLists.txt
# lists the folders (KILN_BACKEND_DIRS). The core includes no backend: the lists of kernel
# registrations and of Backend objects are written here, at build time.
#   kiln_add_backend(NAME name FACTORY fn [REGISTER_KERNELS fn]
#                    [KERNEL_SOURCES files...] [RUNTIME_SOURCES files...])
#     FACTORY: e.g. kiln::MakeCpuBackend, a `std::unique_ptr<Backend>()` (backends/backend.h).
#     REGISTER_KERNELS: e.g. kiln::RegisterCpuKernels, a `void(KernelRegistry&)`.
#     KERNEL_SOURCES go into kiln_kernels (per-ISA flags by file name), RUNTIME_SOURCES (the
#     Backend object, the executor) into kiln_runtime.
#   kiln_omit_backend(NAME name OPTION option [ALIASES names...]): a backend this build leaves
#     out (its CMake option off). A session asked for it goes on without it, as without its
#     device, and says which option builds it.
#   kiln_write_backend_lists(KERNELS_OUT BACKENDS_OUT): writes the two .cc files.
set_property(GLOBAL PROPERTY KILN_BACKEND_NAMES "")
set_property(GLOBAL PROPERTY KILN_BACKEND_KERNELS "")
set_property(GLOBAL PROPERTY KILN_BACKEND_FACTORIES "")
set_property(GLOBAL PROPERTY KILN_BACKEND_KERNEL_SOURCES "")
set_property(GLOBAL PROPERTY KILN_BACKEND_RUNTIME_SOURCES "")
set_property(GLOBAL PROPERTY KILN_OMITTED_BACKENDS "")

function(kiln_add_backend)
  cmake_parse_arguments(B "" "NAME;FACTORY;REGISTER_KERNELS" "KERNEL_SOURCES;RUNTIME_SOURCES"
                        ${ARGN})
  if(NOT B_NAME OR NOT B_FACTORY)
    message(FATAL_ERROR "kiln_add_backend: NAME and FACTORY are required")
  endif()
  get_property(names GLOBAL PROPERTY KILN_BACKEND_NAMES)
  if(B_NAME IN_LIST names)
    message(FATAL_ERROR "kiln_add_backend: a backend called '${B_NAME}' was added already")
  endif()
  set_property(GLOBAL APPEND PROPERTY KILN_BACKEND_NAMES ${B_NAME})
  set_property(GLOBAL APPEND PROPERTY KILN_BACKEND_FACTORIES ${B_FACTORY})
  if(B_REGISTER_KERNELS)
    set_property(GLOBAL APPEND PROPERTY KILN_BACKEND_KERNELS ${B_REGISTER_KERNELS})
  endif()
  set_property(GLOBAL APPEND PROPERTY KILN_BACKEND_KERNEL_SOURCES ${B_KERNEL_SOURCES})
  set_property(GLOBAL APPEND PROPERTY KILN_BACKEND_RUNTIME_SOURCES ${B_RUNTIME_SOURCES})
endfunction()

function(kiln_omit_backend)
  cmake_parse_arguments(B "" "NAME;OPTION" "ALIASES" ${ARGN})
  if(NOT B_NAME OR NOT B_OPTION)
    message(FATAL_ERROR "kiln_omit_backend: NAME and OPTION are required")
  endif()
  set(names "")
  foreach(n ${B_NAME} ${B_ALIASES})
    string(APPEND names "\"${n}\", ")
  endforeach()
  set_property(GLOBAL APPEND_STRING PROPERTY KILN_OMITTED_BACKENDS
               "      {\"${B_NAME}\", \"${B_OPTION}\", {${names}}},\n")
endfunction()

# "namespace a::b {\n<signature with NAME>;\n}\n" for a qualified function name a::b::NAME.
function(_kiln_declare out qualified signature)
  string(REGEX MATCH "^(.*)::([A-Za-z_0-9]+)$" _ ${qualified})
  string(REPLACE "NAME" "${CMAKE_MATCH_2}" decl "${signature}")
  set(${out} "namespace ${CMAKE_MATCH_1} {\n${decl};\n}  // namespace ${CMAKE_MATCH_1}\n"
      PARENT_SCOPE)
endfunction()

function(kiln_write_backend_lists kernels_out backends_out)
  get_property(functions GLOBAL PROPERTY KILN_BACKEND_KERNELS)
  set(decls "")
  set(calls "")
  foreach(f ${functions})
    _kiln_declare(decl ${f} "void NAME(KernelRegistry& r)")
    string(APPEND decls "${decl}")
    string(APPEND calls "  ${f}(r);\n")
  endforeach()
  file(CONFIGURE OUTPUT ${kernels_out} CONTENT
"// Written by cmake/KilnBackends.cmake: the kernels of this build's backends, in list order.
#include \"kernels/kernel_registry.h\"

${decls}
namespace kiln {

void RegisterBackendKernels(KernelRegistry& r) {
${calls}}

}  // namespace kiln
")
  get_property(omitted GLOBAL PROPERTY KILN_OMITTED_BACKENDS)
  get_property(factories GLOBAL PROPERTY KILN_BACKEND_FACTORIES)
  set(decls "")
  set(calls "")
  foreach(f ${factories})
    _kiln_declare(decl ${f} "std::unique_ptr<Backend> NAME()")
    string(APPEND decls "${decl}")
    string(APPEND calls "  backends.push_back(${f}());\n")
  endforeach()
  file(CONFIGURE OUTPUT ${backends_out} CONTENT
"// Written by cmake/KilnBackends.cmake: this build's backends, in list order.
#include \"backends/backend_registry.h\"

${decls}
namespace kiln {

std::vector<std::unique_ptr<Backend>> MakeBuiltInBackends() {
  std::vector<std::unique_ptr<Backend>> backends;
${calls}  return backends;
}

const std::vector<OmittedBackend>& OmittedBackends() {
  static const std::vector<OmittedBackend> omitted = {
${omitted}  };
  return omitted;
}

}  // namespace kiln
")
endfunction()
