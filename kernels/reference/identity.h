// Reference kernels that pass their first input through unchanged (any dtype): Identity and
// the pure re-views Reshape, Flatten, Squeeze, Unsqueeze; and inference-mode Dropout.
#pragma once

#include "kernels/kernel.h"

namespace kiln {

// Output 0 = input 0, byte for byte (the shapes differ only in how the bytes are viewed).
class CopyKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  size_t bytes_ = 0;
};

// Dropout-13: identity, plus an all-true mask. Training with a non-zero ratio would need a
// random mask and is rejected (at Run when training_mode/ratio are runtime inputs).
class DropoutKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  size_t bytes_ = 0;
  int64_t elements_ = 0;
};

}  // namespace kiln
