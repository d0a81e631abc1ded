// Reference pools: MaxPool (optional Indices, storage_order), AveragePool (count_include_pad),
// both over 1-3 spatial axes with strides, dilations, pads and ceil_mode; and the global pools.
#include <limits>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/layout_adapter.h"
#include "kernels/reference/pool_window.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class MaxPoolKernel : public PoolBase {
 public:
  Status Prepare(const KernelContext& ctx) override {
    KILN_RETURN_IF_ERROR(PoolBase::Prepare(ctx));
    column_major_ = ctx.attrs().GetInt("storage_order", 0) != 0;
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    using C = typename Elem<T>::Compute;
    const T* x = inputs[0].as<const T>();
    T* y = outputs[0].as<T>();
    int64_t* indices = outputs.size() > 1 ? outputs[1].as<int64_t>() : nullptr;
    const int64_t in_plane = in_.size();
    for (int64_t p = 0; p < planes_; ++p) {
      const T* xp = x + p * in_plane;
      int64_t o = p * out_.size();
      ForEachWindow([&](const Window& win) {
        C best = std::numeric_limits<C>::lowest();
        int64_t best_d = 0, best_h = 0, best_w = 0;
        for (int64_t kd = win.kd0; kd < win.kd1; ++kd) {
          const int64_t id = win.d + kd * dilation_.d;
          for (int64_t kh = win.kh0; kh < win.kh1; ++kh) {
            const int64_t ih = win.h + kh * dilation_.h;
            const T* row = xp + (id * in_.h + ih) * in_.w;
            for (int64_t kw = win.kw0; kw < win.kw1; ++kw) {
              const int64_t iw = win.w + kw * dilation_.w;
              const C v = Elem<T>::Load(row[iw]);
              if (v > best) {  // first maximum wins, like ONNX Runtime
                best = v;
                best_d = id;
                best_h = ih;
                best_w = iw;
              }
            }
          }
        }
        y[o] = Elem<T>::Store(best);
        if (indices) {
          // Flat index into X; storage_order=1 numbers each plane column-major.
          const int64_t within = column_major_ ? best_d + best_h * in_.d + best_w * in_.d * in_.h
                                               : (best_d * in_.h + best_h) * in_.w + best_w;
          indices[o] = p * in_plane + within;
        }
        ++o;
      });
    }
    return Status::Ok();
  }

 private:
  bool column_major_ = false;
};

template <typename T>
class AveragePoolKernel : public PoolBase {
 public:
  Status Prepare(const KernelContext& ctx) override {
    KILN_RETURN_IF_ERROR(PoolBase::Prepare(ctx));
    count_include_pad_ = ctx.attrs().GetInt("count_include_pad", 0) != 0;
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const T* x = inputs[0].as<const T>();
    T* y = outputs[0].as<T>();
    for (int64_t p = 0; p < planes_; ++p) {
      const T* xp = x + p * in_.size();
      int64_t o = p * out_.size();
      ForEachWindow([&](const Window& win) {
        float sum = 0.f;
        for (int64_t kd = win.kd0; kd < win.kd1; ++kd) {
          const int64_t id = win.d + kd * dilation_.d;
          for (int64_t kh = win.kh0; kh < win.kh1; ++kh) {
            const T* row = xp + (id * in_.h + win.h + kh * dilation_.h) * in_.w;
            for (int64_t kw = win.kw0; kw < win.kw1; ++kw) {
              sum += Elem<T>::Load(row[win.w + kw * dilation_.w]);
            }
          }
        }
        int64_t count = (win.kd1 - win.kd0) * (win.kh1 - win.kh0) * (win.kw1 - win.kw0);
        if (count_include_pad_) count = PaddedTaps(win);
        y[o++] = Elem<T>::Store(count > 0 ? sum / static_cast<float>(count) : 0.f);
      });
    }
    return Status::Ok();
  }

 private:
  bool count_include_pad_ = false;
};

// GlobalAveragePool / GlobalMaxPool: one value per (n, c) plane.
template <typename T, bool kMax>
class GlobalPoolKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    if (x.size() < 3) return InvalidArgument("global pools need X of rank >= 3");
    planes_ = x[0] * x[1];
    inner_ = NumElements(Shape(x.begin() + 2, x.end()));
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const T* x = inputs[0].as<const T>();
    T* y = outputs[0].as<T>();
    for (int64_t p = 0; p < planes_; ++p) {
      const T* xp = x + p * inner_;
      float acc = kMax ? -std::numeric_limits<float>::infinity() : 0.f;
      for (int64_t i = 0; i < inner_; ++i) {
        const float v = Elem<T>::Load(xp[i]);
        if constexpr (kMax) {
          acc = v > acc ? v : acc;
        } else {
          acc += v;
        }
      }
      if constexpr (!kMax) acc = inner_ > 0 ? acc / static_cast<float>(inner_) : 0.f;
      y[p] = Elem<T>::Store(acc);
    }
    return Status::Ok();
  }

 private:
  int64_t planes_ = 0, inner_ = 0;
};

}  // namespace

void RegisterPoolKernels(KernelRegistry& r) {
  RegisterKernel<MaxPoolKernel<float>>(r, OpType::kMaxPool, DType::kF32);
  RegisterKernel<MaxPoolKernel<Float16>>(r, OpType::kMaxPool, DType::kF16);
  RegisterKernel<MaxPoolKernel<int8_t>>(r, OpType::kMaxPool, DType::kI8);
  RegisterKernel<MaxPoolKernel<uint8_t>>(r, OpType::kMaxPool, DType::kU8);
  RegisterKernel<MaxPoolKernel<int16_t>>(r, OpType::kMaxPool, DType::kI16);
  RegisterKernel<AveragePoolKernel<float>>(r, OpType::kAveragePool, DType::kF32);
  RegisterKernel<AveragePoolKernel<Float16>>(r, OpType::kAveragePool, DType::kF16);
  RegisterKernel<GlobalPoolKernel<float, false>>(r, OpType::kGlobalAveragePool, DType::kF32);
  RegisterKernel<GlobalPoolKernel<Float16, false>>(r, OpType::kGlobalAveragePool, DType::kF16);
  // A blocked (NCHW8c) input, plain means out: the same loop on a plain copy.
  RegisterKernel<NCHW8cAdapter<GlobalPoolKernel<float, false>>>(
      r, OpType::kGlobalAveragePool, DType::kF32, kExecutorCpu, Isa::kReference, Layout::kPlain,
      AnyLayoutTraits());
  // Pools inside a blocked region (NCHW8c in and out): the same loops on plain copies.
  RegisterKernel<NCHW8cAdapter<MaxPoolKernel<float>>>(r, OpType::kMaxPool, DType::kF32,
                                                      kExecutorCpu, Isa::kReference,
                                                      Layout::kNCHW8c, AnyLayoutTraits());
  RegisterKernel<NCHW8cAdapter<AveragePoolKernel<float>>>(r, OpType::kAveragePool, DType::kF32,
                                                          kExecutorCpu, Isa::kReference,
                                                          Layout::kNCHW8c, AnyLayoutTraits());
  RegisterKernel<GlobalPoolKernel<float, true>>(r, OpType::kGlobalMaxPool, DType::kF32);
  RegisterKernel<GlobalPoolKernel<Float16, true>>(r, OpType::kGlobalMaxPool, DType::kF16);
}

}  // namespace kiln::nn_ref
