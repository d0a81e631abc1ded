// Shared pieces of the CPU fast-kernel adapters (Kernel subclasses over the kernels/cpu
// routines): the ISA table lookup, and a fallback that runs the reference kernel for the
// cases a fast routine does not cover (so registering a fast kernel never loses an op).
#pragma once

#include <algorithm>
#include <memory>
#include <optional>

#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

// The micro-kernel table of `isa`, or an error when this CPU cannot run it.
Expected<const CpuKernels*> KernelsForIsa(Isa isa);

// Creates and prepares the reference kernel of the context's node.
Expected<std::unique_ptr<Kernel>> PrepareReferenceKernel(const KernelContext& ctx);

// The window (ukernels.h) over the last two axes of the context's pooling node (kernel_shape,
// strides, pads / auto_pad, ceil_mode), or nullopt for what the fast kernels leave to the
// reference: inputs that are not [N, C, W] or [N, C, H, W], several outputs, dilations other
// than 1.
Expected<std::optional<PoolWindow2d>> ResolvePoolWindow2d(const KernelContext& ctx);
// The same from a node's attributes, input shape and output count (a kernel's `accepts`).
Expected<std::optional<PoolWindow2d>> ResolvePoolWindow2d(const Attributes& attrs, const Shape& x,
                                                          size_t num_outputs);

// Calls fn(begin, end) over [0, n) elements in shares of whole 64-element blocks, one per
// thread (elementwise int8 kernels).
template <typename F>
void SplitElements(ThreadPool* pool, int64_t n, const F& fn) {
  constexpr int64_t kMinShare = 16384;  // below this, one thread is faster than a hand-off
  const int threads = pool ? pool->num_threads() : 1;
  const int64_t shares = std::min<int64_t>(threads, (n + kMinShare - 1) / kMinShare);
  if (shares <= 1) {
    fn(int64_t{0}, n);
    return;
  }
  const int64_t blocks = (n + 63) / 64;
  pool->ParallelFor(shares, [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      const int64_t b = std::min(n, blocks * s / shares * 64);
      const int64_t e = std::min(n, blocks * (s + 1) / shares * 64);
      if (e > b) fn(b, e);
    }
  });
}

// Base for adapters that may hand a node to the reference kernel: Prepare() either fills the
// fast path or sets `fallback_`, and Run()/ScratchBytes() forward to it.
class CpuKernelBase : public Kernel {
 public:
  explicit CpuKernelBase(Isa isa) : isa_(isa) {}
  size_t ScratchBytes() const override {
    return fallback_ ? fallback_->ScratchBytes() : FastScratchBytes();
  }
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    return fallback_ ? fallback_->Run(inputs, outputs, scratch) : RunFast(inputs, outputs, scratch);
  }

 protected:
  Status UseReference(const KernelContext& ctx) {
    KILN_ASSIGN_OR_RETURN(fallback_, PrepareReferenceKernel(ctx));
    return Status::Ok();
  }
  virtual size_t FastScratchBytes() const { return 0; }
  virtual Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                         void* scratch) = 0;

  Isa isa_;
  std::unique_ptr<Kernel> fallback_;
};

// Registers T (constructible from Isa) for `op` on u8 and i8 codes at every int8 flavour.
template <typename T>
void RegisterCpuInt8Codes(KernelRegistry& r, OpType op) {
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512Vnni}) {
    for (DType t : {DType::kU8, DType::kI8}) {
      r.Register(KernelKey{op, kExecutorCpu, t, Layout::kPlain, isa},
                 [isa] { return std::make_unique<T>(isa); });
    }
  }
}

// Registers T (constructible from Isa) for `op` and f32 at every CPU flavour with fast
// kernels; the session's cap (clamped to the CPU) decides which one runs.
template <typename T>
void RegisterCpuF32(KernelRegistry& r, OpType op) {
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    r.Register(KernelKey{op, kExecutorCpu, DType::kF32, Layout::kPlain, isa},
               [isa] { return std::make_unique<T>(isa); });
  }
}

}  // namespace kiln::cpu
