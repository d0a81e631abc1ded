# The backends built into this tree and the file that registers their kernels with the core
# registry (kernels/kernel_registry.h RegisterBackendKernels). The core includes no backend: the
# list is made here, at build time, and a new backend adds its registration function to it.
#   kiln_add_backend_kernels(QUALIFIED_FUNCTION): e.g. kiln::RegisterCpuKernels; the function
#   takes a KernelRegistry&.
#   kiln_write_backend_kernels(OUT): writes OUT (a .cc) calling every function added, in order.
set_property(GLOBAL PROPERTY KILN_BACKEND_KERNELS "")

function(kiln_add_backend_kernels function)
  set_property(GLOBAL APPEND PROPERTY KILN_BACKEND_KERNELS ${function})
endfunction()

function(kiln_write_backend_kernels out)
  get_property(functions GLOBAL PROPERTY KILN_BACKEND_KERNELS)
  set(decls "")
  set(calls "")
  foreach(f ${functions})
    string(REGEX MATCH "^(.*)::([A-Za-z_0-9]+)$" _ ${f})
    string(APPEND decls "namespace ${CMAKE_MATCH_1} {\nvoid ${CMAKE_MATCH_2}(KernelRegistry& r);\n}\n")
    string(APPEND calls "  ${f}(r);\n")
  endforeach()
  file(CONFIGURE OUTPUT ${out} CONTENT
"// Written by cmake/KilnBackends.cmake: the backends of this build, in registration order.
#include \"kernels/kernel_registry.h\"

${decls}
namespace kiln {

void RegisterBackendKernels(KernelRegistry& r) {
${calls}}

}  // namespace kiln
")
endfunction()
