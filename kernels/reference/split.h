// Reference Split kernel (any dtype): the inverse of Concat, block copies along the axis.
#pragma once

#include <vector>

#include "kernels/kernel.h"

namespace kiln {

class SplitKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  int64_t outer_ = 0;                // product of the dims before the axis
  std::vector<size_t> block_bytes_;  // per output: its axis dim * inner dims * element size
};

}  // namespace kiln
