// Reference kernels of the broadcasting comparisons Equal, Greater, Less, GreaterOrEqual,
// LessOrEqual (bool output).
#pragma once

#include "kernels/kernel.h"
#include "kernels/reference/broadcast.h"
#include "kernels/reference/cast_convert.h"

namespace kiln {

// Compares stored elements of type T (BoolByte for Equal on bool).
template <typename T>
class CompareKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const BroadcastPlan& plan, const T* a, const T* b, BoolByte* out);
  BroadcastPlan plan_;
  Fn fn_ = nullptr;
};

}  // namespace kiln
