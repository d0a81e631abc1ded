// ISA table lookup and the reference fallback of the CPU fast-kernel adapters.
#include "kernels/cpu/cpu_kernel_util.h"

#include <string>

#include "kernels/cpu/cpu_features.h"

namespace kiln::cpu {

Expected<const CpuKernels*> KernelsForIsa(Isa isa) {
  const CpuKernels* k = GetCpuKernels(isa);
  if (!k) {
    return Unsupported("CPU kernels for " + std::string(IsaName(isa)) +
                       " cannot run on this CPU (best: " + std::string(IsaName(BestCpuIsa())) +
                       ")");
  }
  return k;
}

Expected<std::unique_ptr<Kernel>> PrepareReferenceKernel(const KernelContext& ctx) {
  const KernelFactory* f =
      KernelRegistry::Global().Find(ctx.graph(), ctx.node(), ExecutorKind::kCpu, Isa::kReference);
  if (!f) return Unsupported("no reference kernel to fall back to");
  std::unique_ptr<Kernel> k = (*f)();
  KILN_RETURN_IF_ERROR(k->Prepare(ctx));
  return k;
}

}  // namespace kiln::cpu
