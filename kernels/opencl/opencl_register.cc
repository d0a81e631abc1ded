// The explicit list of OpenCL kernel registrations.
#include "kernels/opencl/cl_kernel.h"
#include "kernels/opencl/opencl_kernels.h"

namespace kiln::opencl {

void RegisterOpenClKernels(KernelRegistry& r) {
  RegisterOpenClConvKernels(r);
  RegisterOpenClLinearKernels(r);
  RegisterOpenClPoolKernels(r);
  RegisterOpenClEltwiseKernels(r);
  RegisterOpenClTensorKernels(r);
}

}  // namespace kiln::opencl
