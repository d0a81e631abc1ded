// Reference kernels of the unary elementwise ops: activations and math functions (one
// kernel class, the op picked in Prepare) and Clip.
#pragma once

#include "kernels/kernel.h"

namespace kiln {

// Attribute values the unary functions read (alpha/beta/gamma of LeakyRelu, HardSigmoid,
// Elu, Selu).
struct UnaryParams {
  float alpha = 0.f;
  float beta = 0.f;
  float gamma = 0.f;
};

// Relu, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Elu, Selu, Softplus, Erf, Exp, Log,
// Sqrt, Abs, Neg, Reciprocal, Floor, Ceil, Sign, Gelu over stored element type T (float, Float16;
// integer types support Relu, Abs, Neg, Sign only).
template <typename T>
class UnaryKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const T* in, T* out, int64_t n, const UnaryParams& p);
  Fn fn_ = nullptr;
  UnaryParams params_;
};

// Clip with optional scalar min/max inputs (read at run time: they need not be constant).
template <typename T>
class ClipKernel : public Kernel {
 public:
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;
};

}  // namespace kiln
