// Reference kernels of IsNaN and IsInf: classify each float element, bool output.
#pragma once

#include "kernels/kernel.h"

namespace kiln {

// IsNaN, or IsInf with its detect_positive / detect_negative flags, over stored type T
// (float, Float16; f16 is classified from its float value, which keeps NaN and infinity).
template <typename T>
class FloatClassKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  bool is_nan_ = true;
  bool detect_positive_ = true;
  bool detect_negative_ = true;
};

}  // namespace kiln
