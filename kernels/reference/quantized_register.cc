// Registers the quantized integer reference kernels (the bit-exact definitions every faster
// integer kernel is tested against).
#include "kernels/kernel_registry.h"
#include "kernels/reference/quantized_kernels.h"

namespace kiln {

void RegisterReferenceQuantizedKernels(KernelRegistry& r) {
  nn_ref::RegisterQConvKernels(r);
  nn_ref::RegisterQGemmKernels(r);
  nn_ref::RegisterQBinaryKernels(r);
  nn_ref::RegisterQConcatKernels(r);
  nn_ref::RegisterQPoolKernels(r);
  nn_ref::RegisterQLookupKernels(r);
}

}  // namespace kiln
