// Resize-13 / Upsample-9 (f32, and 8-bit codes where every output reads one input element:
// a quantized model's nearest upsampling) for the CNN case: only the last two axes resized,
// nearest or linear, no tf_crop_and_resize. Per-row and per-column source tables are built once in
// Prepare() from the same coordinate and tap functions as the reference kernel, and the run is
// table lookups and (linear) the reference's separable sum in its order, so results are
// bit-equal. Table-driven portable C++, not SIMD: no target model spends time here. Other
// cases go to the reference kernel.
#include <algorithm>
#include <cstring>
#include <vector>

#include "ir/ops/resize_params.h"
#include "ir/quant_code.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"

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
    if (p.antialias || (p.mode != ResizeMode::kLinear && p.mode != ResizeMode::kNearest)) {
      return UseReference(ctx);
    }
    linear_ = p.mode == ResizeMode::kLinear;
    in_h_ = p.input[rank - 2];
    in_w_ = p.input[rank - 1];
    out_h_ = p.output[rank - 2];
    out_w_ = p.output[rank - 1];
    planes_ = NumElements(p.input) / std::max<int64_t>(1, in_h_ * in_w_);
    y_active_ = BuildAxis(p, rank - 2, &y_lo_, &y_hi_, &wy_);
    x_active_ = BuildAxis(p, rank - 1, &x_lo_, &x_hi_, &wx_);
    // 8-bit codes (a quantized model's upsampling): only gathers, which move codes exactly.
    codes_ = ctx.input(0).dtype != DType::kF32;
    if (codes_ && (y_active_ || x_active_ || !Is8BitCode(ctx.input(0).dtype))) {
      return UseReference(ctx);
    }
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    if (codes_) {
      Gather(static_cast<const uint8_t*>(inputs[0].data), static_cast<uint8_t*>(outputs[0].data));
      return Status::Ok();
    }
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
        // The reference's separable sum: taps in row-major order (the column fastest), weight
        // products of the per-axis tap weights (1 on an axis with one tap), zero weights
        // skipped -- the same float operations in the same order.
        const float wy0 = y_active_ ? wy_[2 * oy] : 1.f, wy1 = y_active_ ? wy_[2 * oy + 1] : 0.f;
        const float* rows[2] = {x0, x1};
        const float wys[2] = {wy0, wy1};
        for (int64_t ox = 0; ox < out_w_; ++ox) {
          const int64_t cols[2] = {x_lo_[ox], x_hi_[ox]};
          const float wxs[2] = {x_active_ ? wx_[2 * ox] : 1.f, x_active_ ? wx_[2 * ox + 1] : 0.f};
          float sum = 0.f;
          for (int ty = 0; ty < (y_active_ ? 2 : 1); ++ty) {
            for (int tx = 0; tx < (x_active_ ? 2 : 1); ++tx) {
              const float wt = wys[ty] * wxs[tx];
              if (wt != 0.f) sum += wt * rows[ty][cols[tx]];
            }
          }
          out[ox] = sum;
        }
      }
    };
    ForRows(body);
    return Status::Ok();
  }

  // body(r0, r1) over output rows (plane * out_h + row), over the pool where there are enough.
  template <typename F>
  void ForRows(const F& body) const {
    const int64_t rows = planes_ * out_h_;
    const int64_t grain = std::max<int64_t>(1, 8192 / std::max<int64_t>(1, out_w_));
    if (pool_ && pool_->num_threads() > 1 && rows > grain) {
      pool_->ParallelFor(rows, body, grain);
    } else {
      body(0, rows);
    }
  }

  // The gather of 8-bit codes (no interpolation on either axis): each output row copies the
  // columns x_lo_ of its source row y_lo_; a row equal to the one before is copied whole.
  void Gather(const uint8_t* x, uint8_t* y) const {
    ForRows([&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int64_t plane = r / out_h_, oy = r % out_h_;
        uint8_t* out = y + r * out_w_;
        if (oy > 0 && r > r0 && y_lo_[oy] == y_lo_[oy - 1]) {
          std::memcpy(out, out - out_w_, static_cast<size_t>(out_w_));
          continue;
        }
        const uint8_t* src = x + (plane * in_h_ + y_lo_[oy]) * in_w_;
        for (int64_t ox = 0; ox < out_w_; ++ox) out[ox] = src[x_lo_[ox]];
      }
    });
  }

 private:
  // Source tables of one axis, from the reference's own tap functions: lo/hi the two taps
  // (linear) and w their weights, pairwise. Returns whether the axis interpolates: as in the
  // reference, an axis where every output has exactly one non-zero tap weight reads that one
  // input element (lo) with weight 1.
  bool BuildAxis(const ResizeParams& p, size_t axis, std::vector<int64_t>* lo,
                 std::vector<int64_t>* hi, std::vector<float>* w) const {
    const int64_t in = p.input[axis];
    lo->clear();
    hi->clear();
    w->clear();
    bool single = true;
    for (int64_t o = 0; o < p.output[axis]; ++o) {
      bool outside = false;
      const float c = ResizeSourceCoordinate(p, axis, o, &outside);
      if (linear_) {
        const ResizeTaps t = ResizeInterpolationTaps(p, axis, c);
        // Not antialiased: always two taps.
        const int nonzero = (t.weight[0] != 0.f) + (t.weight[1] != 0.f);
        single = single && nonzero == 1;
        lo->push_back(t.index[0]);
        hi->push_back(t.index[1]);
        w->push_back(t.weight[0]);
        w->push_back(t.weight[1]);
      } else {
        const int64_t i = ResizeNearestIndex(p, c, in);
        lo->push_back(i);
        hi->push_back(i);
        w->push_back(1.f);
        w->push_back(0.f);
      }
    }
    if (!linear_ || !single) return linear_;
    // One non-zero tap per output: keep it alone.
    for (size_t o = 0; o < lo->size(); ++o) {
      if ((*w)[2 * o] == 0.f) (*lo)[o] = (*hi)[o];
      (*hi)[o] = (*lo)[o];
    }
    return false;
  }

  bool linear_ = false, y_active_ = false, x_active_ = false;
  bool codes_ = false;  // u8/i8 codes (gathers only)
  int64_t in_h_ = 0, in_w_ = 0, out_h_ = 0, out_w_ = 0, planes_ = 0;
  std::vector<int64_t> y_lo_, y_hi_, x_lo_, x_hi_;
  std::vector<float> wy_, wx_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterCpuResizeKernels(KernelRegistry& r) {
  RegisterCpuF32<ResizeCpu>(r, OpType::kResize);
  RegisterCpuF32<ResizeCpu>(r, OpType::kUpsample);
  RegisterCpuInt8Codes<ResizeCpu>(r, OpType::kResize);
  RegisterCpuInt8Codes<ResizeCpu>(r, OpType::kUpsample);
}

}  // namespace kiln::cpu
