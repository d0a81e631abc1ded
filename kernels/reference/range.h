// Reference Range kernel, one instantiation per numeric dtype (f32, i32, i64).
#pragma once

#include "kernels/kernel.h"

namespace kiln {

template <typename T>
class RangeKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  int64_t count_ = 0;  // fixed by inference from the constant start/limit/delta
};

extern template class RangeKernel<float>;
extern template class RangeKernel<int32_t>;
extern template class RangeKernel<int64_t>;

}  // namespace kiln
