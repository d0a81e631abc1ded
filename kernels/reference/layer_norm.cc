// Reference LayerNormalization-17: each row of the trailing dims X.shape[axis:] normalised by
// its own mean and variance (computed in double), then scaled and shifted by the broadcast
// Scale and B; optional Mean and InvStdDev outputs (f32).
#include <cmath>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

// Index map of a parameter broadcast (numpy rules) onto the normalised shape.
std::vector<int64_t> BroadcastIndex(const Shape& param, const Shape& target) {
  const int64_t n = NumElements(target);
  std::vector<int64_t> index(static_cast<size_t>(n), 0);
  const std::vector<int64_t> pstrides = RowMajorStrides(param);
  const size_t off = target.size() - param.size();
  for (int64_t i = 0; i < n; ++i) {
    int64_t rem = i, src = 0;
    for (size_t d = target.size(); d-- > 0;) {
      const int64_t coord = rem % target[d];
      rem /= target[d];
      if (d >= off && param[d - off] != 1) src += coord * pstrides[d - off];
    }
    index[static_cast<size_t>(i)] = src;
  }
  return index;
}

template <typename T>
class LayerNormKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    int64_t axis = ctx.attrs().GetInt("axis", -1);
    if (!NormalizeAxis(axis, static_cast<int64_t>(x.size()))) {
      return InvalidArgument("LayerNormalization axis out of range");
    }
    const Shape normalised(x.begin() + axis, x.end());
    rows_ = NumElements(Shape(x.begin(), x.begin() + axis));
    cols_ = NumElements(normalised);
    epsilon_ = ctx.attrs().GetFloat("epsilon", 1e-5f);
    scale_index_ = BroadcastIndex(ctx.input(1).shape, normalised);
    has_bias_ = ctx.has_input(2);
    if (has_bias_) bias_index_ = BroadcastIndex(ctx.input(2).shape, normalised);
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const T* x = inputs[0].as<const T>();
    const T* scale = inputs[1].as<const T>();
    const T* bias = has_bias_ && inputs.size() > 2 ? inputs[2].as<const T>() : nullptr;
    T* y = outputs[0].as<T>();
    float* mean_out = outputs.size() > 1 && outputs[1].data ? outputs[1].as<float>() : nullptr;
    float* inv_out = outputs.size() > 2 && outputs[2].data ? outputs[2].as<float>() : nullptr;
    for (int64_t r = 0; r < rows_; ++r) {
      const T* xr = x + r * cols_;
      T* yr = y + r * cols_;
      double sum = 0;
      for (int64_t i = 0; i < cols_; ++i) sum += Elem<T>::Load(xr[i]);
      const double mean = cols_ > 0 ? sum / static_cast<double>(cols_) : 0.0;
      double sq = 0;
      for (int64_t i = 0; i < cols_; ++i) {
        const double d = Elem<T>::Load(xr[i]) - mean;
        sq += d * d;
      }
      const double var = cols_ > 0 ? sq / static_cast<double>(cols_) : 0.0;
      const double inv = 1.0 / std::sqrt(var + epsilon_);
      for (int64_t i = 0; i < cols_; ++i) {
        const size_t k = static_cast<size_t>(i);
        double v = (Elem<T>::Load(xr[i]) - mean) * inv * Elem<T>::Load(scale[scale_index_[k]]);
        if (bias) v += Elem<T>::Load(bias[bias_index_[k]]);
        yr[i] = Elem<T>::Store(static_cast<float>(v));
      }
      if (mean_out) mean_out[r] = static_cast<float>(mean);
      if (inv_out) inv_out[r] = static_cast<float>(inv);
    }
    return Status::Ok();
  }

 private:
  int64_t rows_ = 0, cols_ = 0;
  float epsilon_ = 1e-5f;
  bool has_bias_ = false;
  std::vector<int64_t> scale_index_, bias_index_;
};

}  // namespace

void RegisterLayerNormKernels(KernelRegistry& r) {
  RegisterKernel<LayerNormKernel<float>>(r, OpType::kLayerNormalization, DType::kF32);
  RegisterKernel<LayerNormKernel<Float16>>(r, OpType::kLayerNormalization, DType::kF16);
}

}  // namespace kiln::nn_ref
