// Reference Trilu kernel (any dtype): keeps the upper or lower triangle of each innermost
// matrix, relative to diagonal k (an optional runtime int64 scalar), and zeroes the rest.
#pragma once

#include "kernels/kernel.h"

namespace kiln {

class TriluKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  int64_t matrices_ = 0;  // product of the leading dims
  int64_t rows_ = 0;
  int64_t cols_ = 0;
  size_t elem_bytes_ = 0;
  bool upper_ = true;
};

}  // namespace kiln
