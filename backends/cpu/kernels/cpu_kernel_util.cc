// ISA table lookup and the reference fallback of the CPU fast-kernel adapters.
#include "backends/cpu/kernels/cpu_kernel_util.h"

#include <string>

#include "ir/ops/window_geometry.h"
#include "kernels/cpu_features.h"

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
      KernelRegistry::Global().Find(ctx.graph(), ctx.node(), kExecutorCpu, Isa::kReference);
  if (!f) return Unsupported("no reference kernel to fall back to");
  std::unique_ptr<Kernel> k = (*f)();
  KILN_RETURN_IF_ERROR(k->Prepare(ctx));
  return k;
}

Expected<std::optional<PoolWindow2d>> ResolvePoolWindow2d(const KernelContext& ctx) {
  return ResolvePoolWindow2d(ctx.attrs(), ctx.input(0).shape, ctx.num_outputs());
}

Expected<std::optional<PoolWindow2d>> ResolvePoolWindow2d(const Attributes& attrs, const Shape& x,
                                                          size_t num_outputs) {
  if ((x.size() != 3 && x.size() != 4) || num_outputs > 1) return std::optional<PoolWindow2d>();
  KILN_ASSIGN_OR_RETURN(auto kernel, PoolKernelShape(attrs, x.size() - 2));
  const bool ceil_mode = attrs.GetInt("ceil_mode", 0) != 0;
  KILN_ASSIGN_OR_RETURN(WindowGeometry g,
                        ResolveWindow(attrs, {x.begin() + 2, x.end()}, kernel, ceil_mode));
  for (int64_t d : g.dilations) {
    if (d != 1) return std::optional<PoolWindow2d>();
  }
  const bool two_d = x.size() == 4;
  PoolWindow2d w;
  w.in_h = two_d ? g.input[0] : 1;
  w.in_w = g.input.back();
  w.out_h = two_d ? g.output[0] : 1;
  w.out_w = g.output.back();
  w.kernel_h = two_d ? g.kernel[0] : 1;
  w.kernel_w = g.kernel.back();
  w.stride_h = two_d ? g.strides[0] : 1;
  w.stride_w = g.strides.back();
  w.pad_top = two_d ? g.pads_begin[0] : 0;
  w.pad_bottom = two_d ? g.pads_end[0] : 0;
  w.pad_left = g.pads_begin.back();
  w.pad_right = g.pads_end.back();
  return std::optional<PoolWindow2d>(w);
}

}  // namespace kiln::cpu
