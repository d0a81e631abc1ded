// Reference Slice kernel (any dtype), a strided copy planned in Prepare().
#pragma once

#include "kernels/kernel.h"
#include "kernels/reference/transpose_strided.h"

namespace kiln {

class SliceKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  StridedCopy copy_;
};

}  // namespace kiln
