// Reference Resize-13 and Upsample-9 (which reuses Resize's tables with its own parameters):
// nearest and n-linear interpolation over per-axis source tables built in Prepare().
#include <type_traits>

#include "ir/ops/resize_params.h"
#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class ResizeKernelBase : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    KILN_ASSIGN_OR_RETURN(ResizeParams p, ResolveParams(ctx));
    const size_t rank = p.input.size();
    if (rank == 0 || rank > kMaxRank) {
      return Unsupported("Resize supports ranks 1.." + std::to_string(kMaxRank));
    }
    if (p.output != ctx.output(0).shape) {
      return Internal("Resize output shape differs from the inferred one");
    }
    linear_ = p.mode == ResizeMode::kLinear;
    if (linear_ && !std::is_same_v<typename Elem<T>::Compute, float>) {
      return Unsupported("linear Resize of integer data");
    }
    extrapolation_ = p.extrapolation_value;
    out_shape_ = p.output;
    rank_ = rank;
    const std::vector<int64_t> strides = RowMajorStrides(p.input);
    lo_.assign(rank, {});
    hi_.assign(rank, {});
    weight_.assign(rank, {});
    active_.clear();
    for (size_t a = 0; a < rank; ++a) {
      bool active = false;
      const int64_t in = p.input[a];
      for (int64_t o = 0; o < p.output[a]; ++o) {
        bool outside = false;
        const float x = ResizeSourceCoordinate(p, a, o, &outside);
        int64_t lo, hi;
        float w = 0.f;
        if (linear_) {
          // Clamping the coordinate equals ONNX's edge-padded neighbours.
          const float c = x < 0.f ? 0.f : (x > static_cast<float>(in - 1) ? in - 1 : x);
          lo = static_cast<int64_t>(c);
          hi = lo + 1 < in ? lo + 1 : lo;
          w = c - static_cast<float>(lo);
        } else {
          lo = hi = ResizeNearestIndex(p, x, in);
        }
        active = active || (lo != hi && w != 0.f);
        lo_[a].push_back(outside ? -1 : lo * strides[a]);
        hi_[a].push_back(outside ? -1 : hi * strides[a]);
        weight_[a].push_back(w);
      }
      if (active) active_.push_back(a);
    }
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    using C = typename Elem<T>::Compute;
    const T* x = inputs[0].as<const T>();
    T* y = outputs[0].as<T>();
    const T fill = Elem<T>::Store(static_cast<C>(extrapolation_));
    const int64_t total = NumElements(out_shape_);
    const size_t corners = size_t{1} << active_.size();
    Coords coord{};
    for (int64_t e = 0; e < total; ++e) {
      // Offset of the "low" neighbour along every axis; -1 on any axis means extrapolate.
      int64_t base = 0;
      bool outside = false;
      for (size_t a = 0; a < rank_; ++a) {
        const int64_t s = lo_[a][static_cast<size_t>(coord[a])];
        outside = outside || s < 0;
        base += s;
      }
      if (outside) {
        y[e] = fill;
      } else if (!linear_ || active_.empty()) {
        y[e] = x[base];
      } else {
        float sum = 0.f;
        for (size_t m = 0; m < corners; ++m) {
          int64_t off = base;
          float wt = 1.f;
          for (size_t j = 0; j < active_.size(); ++j) {
            const size_t a = active_[j];
            const size_t c = static_cast<size_t>(coord[a]);
            const float w = weight_[a][c];
            if (m >> j & 1) {
              off += hi_[a][c] - lo_[a][c];
              wt *= w;
            } else {
              wt *= 1.f - w;
            }
          }
          sum += wt * static_cast<float>(Elem<T>::Load(x[off]));
        }
        if constexpr (std::is_same_v<C, float>) y[e] = Elem<T>::Store(sum);
      }
      for (size_t a = rank_; a-- > 0;) {
        if (++coord[a] < out_shape_[a]) break;
        coord[a] = 0;
      }
    }
    return Status::Ok();
  }

 protected:
  virtual Expected<ResizeParams> ResolveParams(const KernelContext& ctx) const = 0;
  static const Value* Optional(const KernelContext& ctx, size_t i) {
    return ctx.has_input(i) ? &ctx.input(i) : nullptr;
  }

 private:
  bool linear_ = false;
  float extrapolation_ = 0.f;
  size_t rank_ = 0;
  Shape out_shape_;
  // Per axis and output index: element offsets of the low/high neighbours (-1: outside the
  // tf_crop_and_resize box) and the high neighbour's weight.
  std::vector<std::vector<int64_t>> lo_, hi_;
  std::vector<std::vector<float>> weight_;
  std::vector<size_t> active_;  // axes that actually interpolate between two neighbours
};

template <typename T>
class ResizeKernel : public ResizeKernelBase<T> {
 protected:
  Expected<ResizeParams> ResolveParams(const KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(auto roi, ConstantValueFloats(this->Optional(ctx, 1), "roi"));
    KILN_ASSIGN_OR_RETURN(auto scales, ConstantValueFloats(this->Optional(ctx, 2), "scales"));
    KILN_ASSIGN_OR_RETURN(auto sizes, ConstantValueInts(this->Optional(ctx, 3), "sizes"));
    return ResolveResize(ctx.attrs(), ctx.input(0).shape, roi, scales, sizes);
  }
};

template <typename T>
class UpsampleKernel : public ResizeKernelBase<T> {
 protected:
  Expected<ResizeParams> ResolveParams(const KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(auto scales, ConstantValueFloats(&ctx.input(1), "scales"));
    return ResolveUpsample(ctx.attrs(), ctx.input(0).shape, scales);
  }
};

template <typename T>
void RegisterBoth(KernelRegistry& r, DType dtype) {
  RegisterKernel<ResizeKernel<T>>(r, OpType::kResize, dtype);
  RegisterKernel<UpsampleKernel<T>>(r, OpType::kUpsample, dtype);
}

}  // namespace

void RegisterResizeKernels(KernelRegistry& r) {
  RegisterBoth<float>(r, DType::kF32);
  RegisterBoth<Float16>(r, DType::kF16);
  // Integer data: nearest only (Prepare rejects linear).
  RegisterBoth<int8_t>(r, DType::kI8);
  RegisterBoth<uint8_t>(r, DType::kU8);
  RegisterBoth<int32_t>(r, DType::kI32);
  RegisterBoth<int64_t>(r, DType::kI64);
}

}  // namespace kiln::nn_ref
