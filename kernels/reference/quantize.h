// Reference kernels of QuantizeLinear and DequantizeLinear (per-tensor and per-axis).
#pragma once

#include "kernels/kernel.h"

namespace kiln {

// Scale/zero-point indexing: element i uses parameter (i / inner) % channels; per-tensor
// parameters have channels == 1.
struct QuantAxis {
  int64_t channels = 1;
  int64_t inner = 1;
};
Expected<QuantAxis> ResolveQuantAxis(const KernelContext& ctx);

// x (stored type TIn: float or Float16) -> u8/i8, chosen from the output dtype.
template <typename TIn>
class QuantizeKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  using Fn = void (*)(const TIn* x, const float* scale, const void* zero_point, void* out,
                      int64_t n, const QuantAxis& q);
  Fn fn_ = nullptr;
  QuantAxis q_;
};

// x (u8, i8 or i32) -> f32.
template <typename TIn>
class DequantizeKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override;
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override;

 private:
  QuantAxis q_;
};

}  // namespace kiln
