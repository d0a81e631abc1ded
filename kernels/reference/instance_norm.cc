// Reference InstanceNormalization: each (n, c) plane normalised by its own mean and variance.
#include <cmath>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class InstanceNormKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    if (x.size() < 3) return InvalidArgument("InstanceNormalization X must be [N, C, spatial...]");
    batch_ = x[0];
    channels_ = x[1];
    inner_ = NumElements(Shape(x.begin() + 2, x.end()));
    epsilon_ = ctx.attrs().GetFloat("epsilon", 1e-5f);
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const T* x = inputs[0].as<const T>();
    const T* scale = inputs[1].as<const T>();
    const T* bias = inputs[2].as<const T>();
    T* y = outputs[0].as<T>();
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t c = 0; c < channels_; ++c) {
        const T* xp = x + (n * channels_ + c) * inner_;
        T* yp = y + (n * channels_ + c) * inner_;
        // Two passes in double: the mean, then the (population) variance around it.
        double sum = 0;
        for (int64_t i = 0; i < inner_; ++i) sum += Elem<T>::Load(xp[i]);
        const double mean = inner_ > 0 ? sum / static_cast<double>(inner_) : 0.0;
        double sq = 0;
        for (int64_t i = 0; i < inner_; ++i) {
          const double d = Elem<T>::Load(xp[i]) - mean;
          sq += d * d;
        }
        const double var = inner_ > 0 ? sq / static_cast<double>(inner_) : 0.0;
        const float a = static_cast<float>(Elem<T>::Load(scale[c]) / std::sqrt(var + epsilon_));
        const float b = Elem<T>::Load(bias[c]) - static_cast<float>(mean) * a;
        for (int64_t i = 0; i < inner_; ++i) yp[i] = Elem<T>::Store(Elem<T>::Load(xp[i]) * a + b);
      }
    }
    return Status::Ok();
  }

 private:
  int64_t batch_ = 0, channels_ = 0, inner_ = 0;
  float epsilon_ = 1e-5f;
};

}  // namespace

void RegisterInstanceNormKernels(KernelRegistry& r) {
  RegisterKernel<InstanceNormKernel<float>>(r, OpType::kInstanceNormalization, DType::kF32);
  RegisterKernel<InstanceNormKernel<Float16>>(r, OpType::kInstanceNormalization, DType::kF16);
}

}  // namespace kiln::nn_ref
