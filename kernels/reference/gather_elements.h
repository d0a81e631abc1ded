// Reference GatherElements kernel (any data dtype; i32 or i64 indices): each output element
// is the data element at its own position with the axis coordinate taken from indices.
#pragma once

#include <vector>

#include "kernels/kernel.h"
#include "kernels/reference/axis_index_walk.h"

namespace kiln {

class GatherElementsKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  // Copies elements of one byte width (selected at prepare by the element size).
  using Fn = Status (*)(GatherElementsKernel& k, const void* data, const void* indices, void* out);
  template <typename U, typename I>
  static Status Copy(GatherElementsKernel& k, const void* data, const void* indices, void* out);

  Fn fn_ = nullptr;
  AxisIndexGeometry geo_;  // index_shape: the output's shape
};

}  // namespace kiln
