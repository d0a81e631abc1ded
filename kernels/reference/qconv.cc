// Reference QConv: the bit-exact definition of the quantized convolution (docs/quantization.md).
//   acc[oc] = bias[oc] + sum over taps inside the input of (w - zw[oc]) * (x - zx)
//   acc[oc] += Requantize(r - zr, residual_requant[oc])          (with a residual R; saturating)
//   y = clamp(zy + Requantize(acc, requant[oc]), qmin, qmax)      (u8/i8 output)
//   y = clamp(acc, qmin, qmax)                                    (i32 output)
// An int16 input or int16 weights (symmetric, zero point 0) accumulate in int64 with an i32 or
// i64 bias, add the residual term without saturation and requantize with RequantizeWide.
// Padding taps are skipped (they hold the real value 0). Groups (depthwise included), strides,
// dilations, 1-3 spatial axes. Output channels are split over the session's thread pool.
#include <algorithm>
#include <cstring>

#include "ir/ops/window_geometry.h"
#include "kernels/reference/nn_kernels.h"
#include "kernels/reference/quantized_kernels.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::nn_ref {
namespace {

class QConvKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Value& xv = ctx.input(0);
    const Value& wv = ctx.input(1);
    const Shape& x = xv.shape;
    const Shape& w = wv.shape;
    if (x.size() < 3 || x.size() > 5 || w.size() != x.size()) {
      return Unsupported("QConv supports 1-3 spatial axes, X is " + ShapeToString(x));
    }
    if (!wv.is_constant()) return Unsupported("QConv reads a constant weight");
    group_ = ctx.attrs().GetInt("group", 1);
    if (group_ <= 0 || x[1] % group_ != 0 || w[0] % group_ != 0 || w[1] * group_ != x[1]) {
      return InvalidArgument("X " + ShapeToString(x) + " and W " + ShapeToString(w) +
                             " do not fit group " + std::to_string(group_));
    }
    KILN_ASSIGN_OR_RETURN(WindowGeometry g, ResolveWindow(ctx.attrs(), {x.begin() + 2, x.end()},
                                                          {w.begin() + 2, w.end()}, false));
    batch_ = x[0];
    in_channels_ = x[1];
    out_channels_ = w[0];
    in_ = ToDims3(g.input);
    kernel_ = ToDims3(g.kernel);
    out_ = ToDims3(g.output);
    stride_ = ToDims3(g.strides);
    dilation_ = ToDims3(g.dilations);
    pad_ = ToDims3(g.pads_begin, 0);

    x_type_ = xv.dtype;
    x_zero_ = ZeroPointOf(xv);
    wide_ = x_type_ == DType::kI16 || wv.dtype == DType::kI16;
    out_type_ = ctx.output(0).dtype;
    out_zero_ = out_type_ == DType::kI32 ? 0 : ZeroPointOf(ctx.output(0));
    clamp_ = ReadClamp(ctx.attrs(), out_type_);

    // Weights centred once: (w - zw[oc]) as int16. Packed weights (the CPU int8 kernels'
    // layout, in a compiled file) are unpacked first: the oracle runs any file.
    std::vector<uint8_t> unpacked;
    const uint8_t* wbytes = wv.constant->data();
    if (wv.layout != Layout::kPlain) {
      KILN_ASSIGN_OR_RETURN(
          unpacked, UnpackLayout(wv.layout, wv.dtype, wv.shape, wbytes, wv.constant->size()));
      wbytes = unpacked.data();
    }
    const std::vector<int32_t> wz = ZeroPointsOf(wv, out_channels_);
    const int64_t per_oc = NumElements(w) / out_channels_;
    weights_.resize(static_cast<size_t>(NumElements(w)));
    for (int64_t oc = 0; oc < out_channels_; ++oc) {
      for (int64_t i = 0; i < per_oc; ++i) {
        const int64_t k = oc * per_oc + i;
        weights_[static_cast<size_t>(k)] =
            static_cast<int16_t>(LoadQuantized(wbytes, wv.dtype, k) - wz[static_cast<size_t>(oc)]);
      }
    }
    if (ctx.has_input(2)) {
      KILN_ASSIGN_OR_RETURN(bias_, ReadQuantBias(ctx.input(2)));
    } else {
      bias_.assign(static_cast<size_t>(out_channels_), 0);
    }
    requant_.clear();
    if (ctx.has_input(4)) {
      KILN_ASSIGN_OR_RETURN(requant_, ReadRequant(ctx.input(4), out_channels_));
    } else if (out_type_ != DType::kI32) {
      return InvalidArgument("QConv with an 8-bit output needs its requant input");
    }
    residual_ = ctx.has_input(3);
    if (residual_) {
      r_type_ = ctx.input(3).dtype;
      r_zero_ = ZeroPointOf(ctx.input(3));
      KILN_ASSIGN_OR_RETURN(residual_requant_, ReadRequant(ctx.input(5), out_channels_));
    }
    pool_ = ctx.thread_pool();
    tasks_ = pool_ ? std::max(1, pool_->num_threads()) : 1;
    return Status::Ok();
  }

  // The centred input (int16) and one accumulator plane per task.
  size_t ScratchBytes() const override {
    return static_cast<size_t>(batch_ * in_channels_ * in_.size()) * sizeof(int16_t) +
           static_cast<size_t>(tasks_ * out_.size()) * (wide_ ? sizeof(int64_t) : sizeof(int32_t)) +
           64;
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    auto* xc = static_cast<int16_t*>(scratch);
    const int64_t in_elems = batch_ * in_channels_ * in_.size();
    CenterTo16(inputs[0].data, x_type_, x_zero_, in_elems, xc);
    // Accumulators start 64-byte aligned after the centred input.
    const auto base = reinterpret_cast<uintptr_t>(xc + in_elems);
    void* acc_all = reinterpret_cast<void*>((base + 63) & ~uintptr_t{63});
    const void* residual = residual_ ? inputs[3].data : nullptr;
    void* y = outputs[0].data;
    const int64_t planes = batch_ * out_channels_;
    auto run_range = [&](int64_t task, int64_t begin, int64_t end) {
      if (wide_) {
        int64_t* acc = static_cast<int64_t*>(acc_all) + task * out_.size();
        for (int64_t p = begin; p < end; ++p) ComputePlane(p, xc, residual, y, acc);
      } else {
        int32_t* acc = static_cast<int32_t*>(acc_all) + task * out_.size();
        for (int64_t p = begin; p < end; ++p) ComputePlane(p, xc, residual, y, acc);
      }
    };
    if (tasks_ == 1 || planes < 2) {
      run_range(0, 0, planes);
      return Status::Ok();
    }
    // One contiguous share of planes per task, so each task owns one accumulator plane.
    const int64_t tasks = std::min<int64_t>(tasks_, planes);
    pool_->ParallelFor(tasks, [&](int64_t t0, int64_t t1) {
      for (int64_t t = t0; t < t1; ++t) {
        run_range(t, planes * t / tasks, planes * (t + 1) / tasks);
      }
    });
    return Status::Ok();
  }

 private:
  // Output plane p = (n, oc): accumulate, add the residual, requantize, store. Acc is int32
  // (8-bit input) or int64 (int16 input).
  template <typename Acc>
  void ComputePlane(int64_t p, const int16_t* xc, const void* residual, void* y, Acc* acc) const {
    const int64_t n = p / out_channels_;
    const int64_t oc = p % out_channels_;
    const int64_t icpg = in_channels_ / group_;
    const int64_t ocpg = out_channels_ / group_;
    const int64_t out_plane = out_.size();
    const int64_t k_size = kernel_.size();
    std::fill(acc, acc + out_plane, static_cast<Acc>(bias_[static_cast<size_t>(oc)]));
    const int64_t g = oc / ocpg;
    for (int64_t icg = 0; icg < icpg; ++icg) {
      const int16_t* xp = xc + (n * in_channels_ + g * icpg + icg) * in_.size();
      const int16_t* wk = weights_.data() + (oc * icpg + icg) * k_size;
      AccumulateChannel(xp, wk, acc);
    }
    const int64_t base = p * out_plane;
    if (residual) {
      const Requant rq = residual_requant_[static_cast<size_t>(oc)];
      for (int64_t i = 0; i < out_plane; ++i) {
        const int32_t r = LoadQuantized(residual, r_type_, base + i) - r_zero_;
        if constexpr (sizeof(Acc) == 8) {
          acc[i] += Requantize(r, rq);  // int64: cannot overflow
        } else {
          acc[i] = SaturatingAdd(acc[i], Requantize(r, rq));
        }
      }
    }
    const Requant rq = requant_.empty() ? Requant{} : requant_[static_cast<size_t>(oc)];
    for (int64_t i = 0; i < out_plane; ++i) {
      StoreQuantized(y, out_type_, base + i,
                     AccumulatorToOutput(acc[i], out_type_, rq, out_zero_, clamp_));
    }
  }

  // acc[o] += w * x over the kernel taps of one input channel: taps outside, output positions
  // inside, each tap's valid output range hoisted (the float reference's loop order).
  template <typename Acc>
  void AccumulateChannel(const int16_t* xp, const int16_t* wk, Acc* acc) const {
    for (int64_t kd = 0; kd < kernel_.d; ++kd) {
      const int64_t off_d = kd * dilation_.d - pad_.d;
      int64_t d0, d1;
      ValidRange(off_d, stride_.d, in_.d, out_.d, &d0, &d1);
      for (int64_t kh = 0; kh < kernel_.h; ++kh) {
        const int64_t off_h = kh * dilation_.h - pad_.h;
        int64_t h0, h1;
        ValidRange(off_h, stride_.h, in_.h, out_.h, &h0, &h1);
        for (int64_t kw = 0; kw < kernel_.w; ++kw) {
          const int64_t off_w = kw * dilation_.w - pad_.w;
          int64_t w0, w1;
          ValidRange(off_w, stride_.w, in_.w, out_.w, &w0, &w1);
          const int32_t wv = wk[(kd * kernel_.h + kh) * kernel_.w + kw];
          if (wv == 0) continue;
          for (int64_t od = d0; od < d1; ++od) {
            const int64_t id = od * stride_.d + off_d;
            for (int64_t oh = h0; oh < h1; ++oh) {
              const int64_t ih = oh * stride_.h + off_h;
              const int16_t* xrow = xp + (id * in_.h + ih) * in_.w;
              Acc* arow = acc + (od * out_.h + oh) * out_.w;
              if (stride_.w == 1) {
                for (int64_t ow = w0; ow < w1; ++ow) arow[ow] += Acc{wv} * xrow[ow + off_w];
              } else {
                for (int64_t ow = w0; ow < w1; ++ow) {
                  arow[ow] += Acc{wv} * xrow[ow * stride_.w + off_w];
                }
              }
            }
          }
        }
      }
    }
  }

  int64_t group_ = 1, batch_ = 0, in_channels_ = 0, out_channels_ = 0;
  Dims3 in_, kernel_, out_, stride_, dilation_, pad_;
  DType x_type_ = DType::kU8, out_type_ = DType::kU8, r_type_ = DType::kU8;
  int32_t x_zero_ = 0, out_zero_ = 0, r_zero_ = 0;
  QuantClamp clamp_;
  std::vector<int16_t> weights_;  // (w - zw) row-major [M, C/group, k...]
  std::vector<int64_t> bias_;     // i32 (8-bit input) or i64 (int16 input) constant, widened
  std::vector<Requant> requant_, residual_requant_;
  bool residual_ = false;
  bool wide_ = false;  // int16 input or weights: int64 accumulators
  ThreadPool* pool_ = nullptr;
  int tasks_ = 1;
};

}  // namespace

void RegisterQConvKernels(KernelRegistry& r) {
  KernelTraits any_layout;
  any_layout.any_weight_layout = true;
  RegisterKernel<QConvKernel>(r, OpType::kQConv, DType::kU8, kExecutorCpu, Isa::kReference,
                              Layout::kPlain, any_layout);
  RegisterKernel<QConvKernel>(r, OpType::kQConv, DType::kI8, kExecutorCpu, Isa::kReference,
                              Layout::kPlain, any_layout);
  RegisterKernel<QConvKernel>(r, OpType::kQConv, DType::kI16, kExecutorCpu, Isa::kReference,
                              Layout::kPlain, any_layout);
}

}  // namespace kiln::nn_ref
