# The CPU backend: portable and per-ISA kernels, the host executor. Always built; the fallback
# of every other backend.
kiln_sources(_cpu_kernels backends/cpu/kernels backends/cpu/ukernels backends/cpu/ukernels/scalar
             backends/cpu/ukernels/avx2 backends/cpu/ukernels/avx512 backends/cpu/tables)
kiln_add_backend(NAME cpu
  FACTORY kiln::MakeCpuBackend
  REGISTER_KERNELS kiln::RegisterCpuKernels
  KERNEL_SOURCES ${_cpu_kernels} ${CMAKE_SOURCE_DIR}/backends/cpu/cpu_register.cc
  RUNTIME_SOURCES ${CMAKE_SOURCE_DIR}/backends/cpu/cpu_backend.cc
                  ${CMAKE_SOURCE_DIR}/backends/cpu/cpu_evaluate.cc
                  ${CMAKE_SOURCE_DIR}/backends/cpu/cpu_executor.cc)
