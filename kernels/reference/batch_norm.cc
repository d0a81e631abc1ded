// Reference BatchNormalization-15: inference with given statistics, or training_mode=1 with
// batch statistics plus the updated running mean/var outputs.
#include <cmath>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class BatchNormKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    if (x.size() < 2) return InvalidArgument("BatchNormalization X must be [N, C, ...]");
    for (size_t i = 1; i < 5; ++i) {
      if (ctx.input(i).dtype != ctx.input(0).dtype) {
        return Unsupported("BatchNormalization with mixed input dtypes");
      }
    }
    batch_ = x[0];
    channels_ = x[1];
    inner_ = NumElements(Shape(x.begin() + 2, x.end()));
    epsilon_ = ctx.attrs().GetFloat("epsilon", 1e-5f);
    momentum_ = ctx.attrs().GetFloat("momentum", 0.9f);
    training_ = ctx.attrs().GetInt("training_mode", 0) != 0;
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const T* x = inputs[0].as<const T>();
    const T* scale = inputs[1].as<const T>();
    const T* bias = inputs[2].as<const T>();
    const T* in_mean = inputs[3].as<const T>();
    const T* in_var = inputs[4].as<const T>();
    T* y = outputs[0].as<T>();
    T* run_mean = outputs.size() > 1 ? outputs[1].as<T>() : nullptr;
    T* run_var = outputs.size() > 2 ? outputs[2].as<T>() : nullptr;
    for (int64_t c = 0; c < channels_; ++c) {
      float mean = Elem<T>::Load(in_mean[c]);
      float var = Elem<T>::Load(in_var[c]);
      if (training_) {
        BatchStatistics(x, c, &mean, &var);
        // Running statistics blend the given ones with the batch's (population variance).
        if (run_mean) {
          run_mean[c] =
              Elem<T>::Store(Elem<T>::Load(in_mean[c]) * momentum_ + mean * (1.f - momentum_));
        }
        if (run_var) {
          run_var[c] =
              Elem<T>::Store(Elem<T>::Load(in_var[c]) * momentum_ + var * (1.f - momentum_));
        }
      }
      const float a = Elem<T>::Load(scale[c]) / std::sqrt(var + epsilon_);
      const float b = Elem<T>::Load(bias[c]) - mean * a;
      for (int64_t n = 0; n < batch_; ++n) {
        const int64_t base = (n * channels_ + c) * inner_;
        for (int64_t i = 0; i < inner_; ++i) {
          y[base + i] = Elem<T>::Store(Elem<T>::Load(x[base + i]) * a + b);
        }
      }
    }
    return Status::Ok();
  }

 private:
  // Mean and population variance of channel c over N and the spatial axes (double sums).
  void BatchStatistics(const T* x, int64_t c, float* mean, float* var) const {
    double sum = 0, sq = 0;
    for (int64_t n = 0; n < batch_; ++n) {
      const int64_t base = (n * channels_ + c) * inner_;
      for (int64_t i = 0; i < inner_; ++i) sum += Elem<T>::Load(x[base + i]);
    }
    const double count = static_cast<double>(batch_ * inner_);
    const double m = count > 0 ? sum / count : 0.0;
    for (int64_t n = 0; n < batch_; ++n) {
      const int64_t base = (n * channels_ + c) * inner_;
      for (int64_t i = 0; i < inner_; ++i) {
        const double d = Elem<T>::Load(x[base + i]) - m;
        sq += d * d;
      }
    }
    *mean = static_cast<float>(m);
    *var = static_cast<float>(count > 0 ? sq / count : 0.0);
  }

  int64_t batch_ = 0, channels_ = 0, inner_ = 0;
  float epsilon_ = 1e-5f, momentum_ = 0.9f;
  bool training_ = false;
};

}  // namespace

void RegisterBatchNormKernels(KernelRegistry& r) {
  RegisterKernel<BatchNormKernel<float>>(r, OpType::kBatchNormalization, DType::kF32);
  RegisterKernel<BatchNormKernel<Float16>>(r, OpType::kBatchNormalization, DType::kF16);
}

}  // namespace kiln::nn_ref
