// Reference kernel of Where (bool condition, X, Y broadcast together).
#pragma once

#include "kernels/kernel.h"
#include "kernels/reference/broadcast.h"

namespace kiln {

// Dispatched on the condition's dtype (always bool); Where only selects elements, so the
// value type is handled by element width, picked in Prepare.
class WhereKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const BroadcastPlan& plan, const void* cond, const void* x, const void* y,
                      void* out);
  BroadcastPlan plan_;
  Fn fn_ = nullptr;
};

}  // namespace kiln
