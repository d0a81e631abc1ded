// Reference kernels of Softmax and LogSoftmax (opset-13: one axis, default -1).
#pragma once

#include "kernels/kernel.h"

namespace kiln {

template <typename T>
class SoftmaxKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  bool log_ = false;
  // The input viewed as [outer, axis, inner].
  int64_t outer_ = 0, axis_ = 0, inner_ = 0;
};

}  // namespace kiln
