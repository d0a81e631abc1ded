// Reference Gather kernel (any data dtype; i32 or i64 indices): block copies of the selected
// slices along the axis.
#pragma once

#include "kernels/kernel.h"

namespace kiln {

class GatherKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  int64_t outer_ = 0;        // product of data dims before the axis
  int64_t axis_dim_ = 0;     // data dim at the axis (valid index range)
  int64_t num_indices_ = 0;  // elements of the indices tensor
  size_t block_bytes_ = 0;   // one slice: product of data dims after the axis * element size
  bool indices_i64_ = true;
};

}  // namespace kiln
