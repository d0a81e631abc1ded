// Reference ScatterND kernel over stored element type T (i32 or i64 indices; reduction
// none/add/mul/max/min): the output is data with each index tuple's slice replaced by, or
// combined with, its update slice, in index order.
#pragma once

#include <vector>

#include "kernels/kernel.h"

namespace kiln {

template <typename T>
class ScatterNDKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using CombineFn = void (*)(T* dst, const T* src, int64_t n);
  CombineFn combine_ = nullptr;
  int64_t tuples_ = 0;            // index tuples
  std::vector<int64_t> dims_;     // the k data dims a tuple addresses
  std::vector<int64_t> strides_;  // their strides, in slices
  int64_t slice_ = 0;             // elements of one slice (data dims after the k indexed ones)
  bool indices_i64_ = true;
};

}  // namespace kiln
