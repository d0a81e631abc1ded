# The OpenCL (GPU) backend: host code of the kernels, their OpenCL C (kernels/cl/*.cl, embedded
# into the library at build time), the device, caches and executor (docs/gpu.md).
kiln_sources(_opencl_kernels backends/opencl/kernels)
file(GLOB KILN_CL_FILES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/backends/opencl/kernels/cl/*.cl)
set(KILN_CL_EMBEDDED ${CMAKE_BINARY_DIR}/backends/opencl/kernels/cl_sources_embedded.cc)
add_custom_command(
  OUTPUT ${KILN_CL_EMBEDDED}
  COMMAND ${CMAKE_COMMAND} -DOUT=${KILN_CL_EMBEDDED} "-DSOURCES=${KILN_CL_FILES}"
          -P ${CMAKE_SOURCE_DIR}/cmake/embed_cl.cmake
  DEPENDS ${KILN_CL_FILES} ${CMAKE_SOURCE_DIR}/cmake/embed_cl.cmake
  COMMENT "Embedding the OpenCL kernel sources"
  VERBATIM)
kiln_sources(_opencl_runtime backends/opencl)
# The fault-injection seam (cl_fault.cc) sits under every OpenCL call, the kernels' included: it
# goes into the kernel library, so that whatever links the kernels links it.
set(_opencl_fault ${CMAKE_SOURCE_DIR}/backends/opencl/cl_fault.cc)
list(REMOVE_ITEM _opencl_runtime ${_opencl_fault})
kiln_add_backend(NAME opencl
  FACTORY kiln::MakeOpenClBackend
  REGISTER_KERNELS kiln::opencl::RegisterOpenClKernels
  KERNEL_SOURCES ${_opencl_kernels} ${KILN_CL_EMBEDDED} ${_opencl_fault}
  RUNTIME_SOURCES ${_opencl_runtime})
