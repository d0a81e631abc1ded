// Reference CumSum kernel over stored element type T: running sums along a runtime axis,
// optionally exclusive (each sum leaves out its own element) and/or reversed.
#pragma once

#include "kernels/kernel.h"

namespace kiln {

template <typename T>
class CumSumKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  const Shape* shape_ = nullptr;  // the input's shape (owned by the graph)
  bool exclusive_ = false;
  bool reverse_ = false;
  bool axis_i64_ = true;
};

}  // namespace kiln
