// Reference GatherND kernel (any data dtype; i32 or i64 indices, batch_dims): block copies of
// the data slices that each index tuple selects.
#pragma once

#include <vector>

#include "kernels/kernel.h"

namespace kiln {

class GatherNDKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  int64_t batches_ = 1;           // product of the batch dims
  int64_t tuples_ = 0;            // index tuples per batch
  std::vector<int64_t> dims_;     // the k data dims an index tuple addresses
  std::vector<int64_t> strides_;  // their strides, in slices
  int64_t batch_slices_ = 0;      // slices in one batch of data (product of dims_)
  size_t slice_bytes_ = 0;        // one selected slice: data dims after the k indexed ones
  bool indices_i64_ = true;
};

}  // namespace kiln
