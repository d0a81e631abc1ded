// Reference kernels of the broadcasting arithmetic ops: Add, Sub, Mul, Div, PRelu, Mod and Pow.
#pragma once

#include "kernels/kernel.h"
#include "kernels/reference/broadcast.h"

namespace kiln {

// Builds the two-input broadcast plan of a node from its output and input shapes.
Expected<BroadcastPlan> MakeNodeBroadcastPlan(const KernelContext& ctx);

// Add, Sub, Mul, Div, PRelu over stored element type T. Integer arithmetic wraps (two's
// complement, as numpy); integer division truncates toward zero and x/0 gives 0 rather than
// trapping.
template <typename T>
class BinaryKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const BroadcastPlan& plan, const T* a, const T* b, T* out);
  BroadcastPlan plan_;
  Fn fn_ = nullptr;
};

// Mod (fmod 0: the divisor's sign, integers only; fmod 1: C's fmod) over stored type T.
template <typename T>
class ModKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const BroadcastPlan& plan, const T* a, const T* b, T* out);
  BroadcastPlan plan_;
  Fn fn_ = nullptr;
};

// Pow with base type T; the exponent's dtype (f32, f16, i32, i64) is picked in Prepare.
template <typename T>
class PowKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const BroadcastPlan& plan, const T* base, const void* exponent, T* out);
  BroadcastPlan plan_;
  Fn fn_ = nullptr;
};

}  // namespace kiln
