// Reference DepthToSpace (DCR and CRD) and SpaceToDepth kernels (any dtype), both a 6-D
// transpose of a re-viewed NCHW tensor.
#pragma once

#include "kernels/kernel.h"
#include "kernels/reference/transpose_strided.h"

namespace kiln {

class DepthToSpaceKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  StridedCopy copy_;
};

class SpaceToDepthKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  StridedCopy copy_;
};

}  // namespace kiln
