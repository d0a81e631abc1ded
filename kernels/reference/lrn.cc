// Reference LRN: each element divided by (bias + alpha/size * sum of squares over a window of
// neighbouring channels)^beta.
#include <algorithm>
#include <cmath>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class LrnKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    if (x.size() < 2) return InvalidArgument("LRN X must be [N, C, ...]");
    size_ = ctx.attrs().GetInt("size", 0);
    if (size_ <= 0) return InvalidArgument("LRN size must be positive");
    alpha_ = ctx.attrs().GetFloat("alpha", 1e-4f);
    beta_ = ctx.attrs().GetFloat("beta", 0.75f);
    bias_ = ctx.attrs().GetFloat("bias", 1.f);
    batch_ = x[0];
    channels_ = x[1];
    inner_ = NumElements(Shape(x.begin() + 2, x.end()));
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const T* x = inputs[0].as<const T>();
    T* y = outputs[0].as<T>();
    // The window spans channels [c - floor((size-1)/2), c + ceil((size-1)/2)].
    const int64_t before = (size_ - 1) / 2;
    const int64_t after = size_ - 1 - before;
    const float coef = alpha_ / static_cast<float>(size_);
    for (int64_t n = 0; n < batch_; ++n) {
      const int64_t base = n * channels_ * inner_;
      for (int64_t c = 0; c < channels_; ++c) {
        const int64_t c0 = std::max<int64_t>(0, c - before);
        const int64_t c1 = std::min<int64_t>(channels_ - 1, c + after);
        for (int64_t i = 0; i < inner_; ++i) {
          float sq = 0.f;
          for (int64_t k = c0; k <= c1; ++k) {
            const float v = Elem<T>::Load(x[base + k * inner_ + i]);
            sq += v * v;
          }
          const int64_t at = base + c * inner_ + i;
          y[at] = Elem<T>::Store(Elem<T>::Load(x[at]) / std::pow(bias_ + coef * sq, beta_));
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t size_ = 0, batch_ = 0, channels_ = 0, inner_ = 0;
  float alpha_ = 1e-4f, beta_ = 0.75f, bias_ = 1.f;
};

}  // namespace

void RegisterLrnKernels(KernelRegistry& r) {
  RegisterKernel<LrnKernel<float>>(r, OpType::kLRN, DType::kF32);
  RegisterKernel<LrnKernel<Float16>>(r, OpType::kLRN, DType::kF16);
}

}  // namespace kiln::nn_ref
