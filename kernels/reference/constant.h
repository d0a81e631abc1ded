// Reference Constant and ConstantOfShape kernels (any dtype): the bytes are fixed in Prepare()
// from the node's attributes.
#pragma once

#include <vector>

#include "kernels/kernel.h"

namespace kiln {

class ConstantKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  std::vector<uint8_t> bytes_;
};

class ConstantOfShapeKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  std::vector<uint8_t> value_;  // one element
  int64_t count_ = 0;
};

}  // namespace kiln
