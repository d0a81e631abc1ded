// Reference Shape (with Shape-15 start/end) and Size kernels: i64 metadata of any-dtype input.
#pragma once

#include <vector>

#include "kernels/kernel.h"

namespace kiln {

class ShapeKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  std::vector<int64_t> dims_;  // the selected input dims, fixed at compile time
};

class SizeKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  int64_t size_ = 0;
};

}  // namespace kiln
