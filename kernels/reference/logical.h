// Reference kernels of the boolean ops: And, Or (broadcasting) and Not.
#pragma once

#include "kernels/kernel.h"
#include "kernels/reference/broadcast.h"

namespace kiln {

class LogicalKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  OpType op_ = OpType::kUnknown;
  BroadcastPlan plan_;  // And/Or only
};

}  // namespace kiln
