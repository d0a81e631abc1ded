// Reference kernels of ReduceMean, ReduceMax, ReduceMin, ReduceSum, ReduceProd, ReduceL2.
#pragma once

#include <cstdint>
#include <type_traits>

#include "kernels/kernel.h"
#include "kernels/reference/broadcast.h"

namespace kiln {

// T is the stored element type. Accumulation is in double for float types and int64 for
// integer types, in scratch of one accumulator per output element.
template <typename T>
class ReduceKernel : public Kernel {
 public:
  using Acc = std::conditional_t<std::is_integral_v<T>, int64_t, double>;

  Status Prepare(const KernelContext& ctx) override;
  size_t ScratchBytes() const override { return scratch_bytes_; }
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  OpType op_ = OpType::kUnknown;
  // Walks the input (as the plan's output) with the keepdims-shaped output broadcast over
  // it: each input element's offset into the output it reduces into.
  BroadcastPlan plan_;
  int64_t count_ = 1;  // input elements per output element (for ReduceMean)
  size_t scratch_bytes_ = 0;
};

}  // namespace kiln
