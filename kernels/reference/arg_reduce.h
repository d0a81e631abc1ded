// Reference kernels of ArgMax and ArgMin (i64 indices along one axis).
#pragma once

#include "kernels/kernel.h"

namespace kiln {

template <typename T>
class ArgReduceKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  bool is_max_ = true;
  bool select_last_ = false;
  int64_t outer_ = 0, axis_ = 0, inner_ = 0;  // the input viewed as [outer, axis, inner]
};

}  // namespace kiln
