// Registers the reference kernels of the nn op family.
#include "kernels/kernel_registry.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln {

void RegisterReferenceNnKernels(KernelRegistry& r) {
  nn_ref::RegisterConvKernels(r);
  nn_ref::RegisterConvTransposeKernels(r);
  nn_ref::RegisterGemmKernels(r);
  nn_ref::RegisterMatMulKernels(r);
  nn_ref::RegisterBatchNormKernels(r);
  nn_ref::RegisterPoolKernels(r);
  nn_ref::RegisterLrnKernels(r);
  nn_ref::RegisterInstanceNormKernels(r);
  nn_ref::RegisterLayerNormKernels(r);
  nn_ref::RegisterPadKernels(r);
  nn_ref::RegisterResizeKernels(r);
}

}  // namespace kiln
