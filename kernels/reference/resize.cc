// Reference Resize-11..19 and Upsample-9 (which reuses Resize's tables with its own
// parameters): nearest, n-linear and n-cubic interpolation (antialias too) as a separable
// filter over per-axis tap tables built in Prepare().
#include <algorithm>
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
    const bool interpolate = p.mode != ResizeMode::kNearest;
    if (interpolate && !std::is_same_v<typename Elem<T>::Compute, float>) {
      return Unsupported("linear or cubic Resize of integer data");
    }
    extrapolation_ = p.extrapolation_value;
    out_shape_ = p.output;
    rank_ = rank;
    const std::vector<int64_t> strides = RowMajorStrides(p.input);
    taps_.assign(rank, 1);
    offset_.assign(rank, {});
    weight_.assign(rank, {});
    outside_.assign(rank, {});
    for (size_t a = 0; a < rank; ++a) {
      // Every output index's taps on this axis; an axis where each output reads exactly one
      // input element with weight 1 keeps a single tap (no interpolation work).
      std::vector<ResizeTaps> per_output;
      size_t width = 1;
      for (int64_t o = 0; o < p.output[a]; ++o) {
        bool outside = false;
        const float x = ResizeSourceCoordinate(p, a, o, &outside);
        ResizeTaps t;
        if (interpolate) {
          t = ResizeInterpolationTaps(p, a, x);
        } else {
          t.index = {ResizeNearestIndex(p, x, p.input[a])};
          t.weight = {1.f};
        }
        outside_[a].push_back(outside);
        width = std::max(width, t.index.size());
        per_output.push_back(std::move(t));
      }
      bool single = true;
      for (const ResizeTaps& t : per_output) {
        int nonzero = 0;
        for (float w : t.weight) nonzero += w != 0.f;
        single = single && nonzero == 1;
      }
      if (single) width = 1;
      taps_[a] = width;
      for (const ResizeTaps& t : per_output) {
        for (size_t k = 0; k < width; ++k) {
          size_t src = k;
          if (single) {  // the one tap with a non-zero weight
            while (t.weight[src] == 0.f) ++src;
          }
          const bool present = src < t.index.size();
          offset_[a].push_back(present ? t.index[src] * strides[a] : 0);
          weight_[a].push_back(present ? (single ? 1.f : t.weight[src]) : 0.f);
        }
      }
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
    Coords coord{};
    Coords tap{};
    for (int64_t e = 0; e < total; ++e) {
      bool outside = false;
      size_t combos = 1;
      for (size_t a = 0; a < rank_; ++a) {
        outside = outside || outside_[a][static_cast<size_t>(coord[a])];
        combos *= taps_[a];
      }
      if (outside) {
        y[e] = fill;
      } else if (combos == 1) {
        int64_t off = 0;
        for (size_t a = 0; a < rank_; ++a) off += offset_[a][static_cast<size_t>(coord[a])];
        y[e] = x[off];
      } else {
        // Separable filter: the sum over every combination of per-axis taps.
        float sum = 0.f;
        for (size_t a = 0; a < rank_; ++a) tap[a] = 0;
        for (size_t m = 0; m < combos; ++m) {
          int64_t off = 0;
          float wt = 1.f;
          for (size_t a = 0; a < rank_; ++a) {
            const size_t at =
                static_cast<size_t>(coord[a]) * taps_[a] + static_cast<size_t>(tap[a]);
            off += offset_[a][at];
            wt *= weight_[a][at];
          }
          if (wt != 0.f) sum += wt * static_cast<float>(Elem<T>::Load(x[off]));
          for (size_t a = rank_; a-- > 0;) {
            if (static_cast<size_t>(++tap[a]) < taps_[a]) break;
            tap[a] = 0;
          }
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
  float extrapolation_ = 0.f;
  size_t rank_ = 0;
  Shape out_shape_;
  // Per axis: taps per output index, then for each (output index, tap) the element offset of
  // the input index and its weight; outside_: tf_crop_and_resize samples off the input.
  std::vector<size_t> taps_;
  std::vector<std::vector<int64_t>> offset_;
  std::vector<std::vector<float>> weight_;
  std::vector<std::vector<bool>> outside_;
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
  RegisterBoth<int16_t>(r, DType::kI16);
  RegisterBoth<int32_t>(r, DType::kI32);
  RegisterBoth<int64_t>(r, DType::kI64);
}

}  // namespace kiln::nn_ref
