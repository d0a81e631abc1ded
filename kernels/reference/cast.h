// Reference kernel of Cast between every pair of IR dtypes.
#pragma once

#include "kernels/kernel.h"

namespace kiln {

// From is the stored input type (Float16 for f16, BoolByte for bool); the output type is
// picked in Prepare from the output value's dtype.
template <typename From>
class CastKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const From* in, void* out, int64_t n);
  Fn fn_ = nullptr;
};

}  // namespace kiln
