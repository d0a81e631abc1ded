# The DSP backend: the integer-only target's ops (command streams over a scratchpad, run by a
# host model of the engine) and its executor (docs/dsp-target.md).
kiln_sources(_dsp_kernels backends/dsp/kernels)
kiln_sources(_dsp_runtime backends/dsp)
kiln_add_backend(NAME dsp
  FACTORY kiln::MakeDspBackend
  KERNEL_SOURCES ${_dsp_kernels}
  RUNTIME_SOURCES ${_dsp_runtime})
