// Reference kernels of the variadic broadcasting ops Max, Min, Sum, Mean: the inputs are
// folded pairwise into an accumulator of the output's shape.
#pragma once

#include <vector>

#include "kernels/kernel.h"
#include "kernels/reference/broadcast.h"

namespace kiln {

template <typename T>
class VariadicKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  size_t ScratchBytes() const override { return scratch_bytes_; }
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  OpType op_ = OpType::kUnknown;
  // plans_[k] walks the output (input 0 of the plan, the accumulator) and input k.
  std::vector<BroadcastPlan> plans_;
  size_t scratch_bytes_ = 0;
};

}  // namespace kiln
