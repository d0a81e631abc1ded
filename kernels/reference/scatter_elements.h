// Reference ScatterElements kernel over stored element type T (i32 or i64 indices; reduction
// none/add/mul/max/min): the output is data with each update written to (or combined with)
// the element at its own position, the axis coordinate taken from indices.
#pragma once

#include <vector>

#include "kernels/kernel.h"
#include "kernels/reference/axis_index_walk.h"
#include "kernels/reference/scatter_reduce.h"

namespace kiln {

template <typename T>
class ScatterElementsKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using ScatterFn = Status (*)(ScatterElementsKernel& k, const void* indices, const T* updates,
                               T* out);
  template <typename I, ScatterReduction R>
  static Status Scatter(ScatterElementsKernel& k, const void* indices, const T* updates, T* out);
  template <typename I>
  static ScatterFn Pick(ScatterReduction r);

  ScatterFn fn_ = nullptr;
  AxisIndexGeometry geo_;  // index_shape: the indices' (and updates') shape
};

}  // namespace kiln
