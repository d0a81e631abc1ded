// Resize-13 / Upsample-9 (f32) for the CNN case: only the last two axes resized, nearest or
// linear, no tf_crop_and_resize. Per-row and per-column source tables are built once in
// Prepare() from the same coordinate functions as the reference kernel, and the run is two
// table lookups and (bilinear) the reference's corner sum in its order, so results are
// bit-equal. Table-driven portable C++, not SIMD: no target model spends time here. Other
// cases go to the reference kernel.
#include <algorithm>
#include <vector>

#include "ir/ops/resize_params.h"
#include "kernels/cpu/cpu_kernel_util.h"
#include "kernels/cpu/cpu_kernels.h"

namespace kiln::cpu {
namespace {

class ResizeCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    auto opt = [&](size_t i) { return ctx.has_input(i) ? &ctx.input(i) : nullptr; };
    Expected<ResizeParams> params = Unsupported("");
    if (ctx.node().op == OpType::kUpsample) {
      auto scales = ConstantValueFloats(&ctx.input(1), "scales");
      if (!scales.ok()) return UseReference(ctx);
      params = ResolveUpsample(ctx.attrs(), ctx.input(0).shape, *scales);
    } else {
      auto roi = ConstantValueFloats(opt(1), "roi");
      auto scales = ConstantValueFloats(opt(2), "scales");
      auto sizes = ConstantValueInts(opt(3), "sizes");
      if (!roi.ok() || !scales.ok() || !sizes.ok()) return UseReference(ctx);
      params = ResolveResize(ctx.attrs(), ctx.input(0).shape, *roi, *scales, *sizes);
    }
    if (!params.ok()) return UseReference(ctx);
    const ResizeParams& p = *params;
    const size_t rank = p.input.size();
    if (rank < 2 || p.coord == ResizeCoordMode::kTfCropAndResize ||
        p.output != ctx.output(0).shape) {
      return UseReference(ctx);
    }
    for (size_t a = 0; a + 2 < rank; ++a) {
      if (p.input[a] != p.output[a]) return UseReference(ctx);
    }
    linear_ = p.mode == ResizeMode::kLinear;
    in_h_ = p.input[rank - 2];
    in_w_ = p.input[rank - 1];
    out_h_ = p.output[rank - 2];
    out_w_ = p.output[rank - 1];
    planes_ = NumElements(p.input) / std::max<int64_t>(1, in_h_ * in_w_);
    BuildAxis(p, rank - 2, &y_lo_, &y_hi_, &wy_);
    BuildAxis(p, rank - 1, &x_lo_, &x_hi_, &wx_);
    // An axis interpolates only if some output really mixes two neighbours (the reference's
    // "active" axes): otherwise its corner terms are not in the reference's sum.
    y_active_ = linear_ && Active(y_lo_, y_hi_, wy_);
    x_active_ = linear_ && Active(x_lo_, x_hi_, wx_);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    auto body = [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {  // r: plane * out_h + output row
        const int64_t plane = r / out_h_, oy = r % out_h_;
        const float* x0 = x + plane * in_h_ * in_w_ + y_lo_[oy] * in_w_;
        const float* x1 = x + plane * in_h_ * in_w_ + y_hi_[oy] * in_w_;
        float* out = y + r * out_w_;
        if (!y_active_ && !x_active_) {
          for (int64_t ox = 0; ox < out_w_; ++ox) out[ox] = x0[x_lo_[ox]];
          continue;
        }
        const float wy = wy_[oy];
        for (int64_t ox = 0; ox < out_w_; ++ox) {
          const int64_t l = x_lo_[ox], h = x_hi_[ox];
          const float wx = wx_[ox];
          // Corners in the reference's order: bit 0 of the corner index is the row axis.
          float sum = 0.f;
          if (y_active_ && x_active_) {
            sum += (1.f - wy) * (1.f - wx) * x0[l];
            sum += wy * (1.f - wx) * x1[l];
            sum += (1.f - wy) * wx * x0[h];
            sum += wy * wx * x1[h];
          } else if (y_active_) {
            sum += (1.f - wy) * x0[l];
            sum += wy * x1[l];
          } else {
            sum += (1.f - wx) * x0[l];
            sum += wx * x0[h];
          }
          out[ox] = sum;
        }
      }
    };
    const int64_t rows = planes_ * out_h_;
    const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, out_w_));
    if (pool_ && pool_->num_threads() > 1 && rows > grain) {
      pool_->ParallelFor(rows, body, grain);
    } else {
      body(0, rows);
    }
    return Status::Ok();
  }

 private:
  void BuildAxis(const ResizeParams& p, size_t axis, std::vector<int64_t>* lo,
                 std::vector<int64_t>* hi, std::vector<float>* w) const {
    const int64_t in = p.input[axis];
    lo->clear();
    hi->clear();
    w->clear();
    for (int64_t o = 0; o < p.output[axis]; ++o) {
      bool outside = false;
      const float c = ResizeSourceCoordinate(p, axis, o, &outside);
      if (linear_) {
        // As the reference: clamping the coordinate equals edge-padded neighbours.
        const float x = c < 0.f ? 0.f : (c > static_cast<float>(in - 1) ? in - 1 : c);
        const int64_t l = static_cast<int64_t>(x);
        lo->push_back(l);
        hi->push_back(l + 1 < in ? l + 1 : l);
        w->push_back(x - static_cast<float>(l));
      } else {
        const int64_t i = ResizeNearestIndex(p, c, in);
        lo->push_back(i);
        hi->push_back(i);
        w->push_back(0.f);
      }
    }
  }

  static bool Active(const std::vector<int64_t>& lo, const std::vector<int64_t>& hi,
                     const std::vector<float>& w) {
    for (size_t i = 0; i < lo.size(); ++i) {
      if (lo[i] != hi[i] && w[i] != 0.f) return true;
    }
    return false;
  }

  bool linear_ = false, y_active_ = false, x_active_ = false;
  int64_t in_h_ = 0, in_w_ = 0, out_h_ = 0, out_w_ = 0, planes_ = 0;
  std::vector<int64_t> y_lo_, y_hi_, x_lo_, x_hi_;
  std::vector<float> wy_, wx_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterCpuResizeKernels(KernelRegistry& r) {
  RegisterCpuF32<ResizeCpu>(r, OpType::kResize);
  RegisterCpuF32<ResizeCpu>(r, OpType::kUpsample);
}

}  // namespace kiln::cpu
