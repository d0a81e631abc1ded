// The explicit list of OpenCL kernel registrations.
#include "backends/opencl/kernels/cl_kernel.h"
#include "backends/opencl/kernels/opencl_kernels.h"

namespace kiln::opencl {

void RegisterOpenClKernels(KernelRegistry& r) {
  RegisterOpenClConvKernels(r);
  RegisterOpenClLinearKernels(r);
  RegisterOpenClPoolKernels(r);
  RegisterOpenClEltwiseKernels(r);
  RegisterOpenClTensorKernels(r);
}

}  // namespace kiln::opencl
