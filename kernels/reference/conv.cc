// Reference Conv and FusedConv: direct loop nest over 1-3 spatial axes with groups (depthwise
// included), strides, dilations and pads; float accumulation, f16 stored as half. FusedConv
// adds the residual and the activation to each accumulated plane before it is stored.
#include "ir/ops/window_geometry.h"
#include "kernels/activation.h"
#include "kernels/reference/cast_convert.h"
#include "kernels/reference/layout_adapter.h"
#include "kernels/reference/nn_kernels.h"
#include "kernels/reference/plain_weights.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class ConvKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    const Shape& w = ctx.input(1).shape;
    if (x.size() < 3 || x.size() > 5 || w.size() != x.size()) {
      return Unsupported("Conv supports 1-3 spatial axes, X is " + ShapeToString(x));
    }
    group_ = ctx.attrs().GetInt("group", 1);
    if (group_ <= 0 || x[1] % group_ != 0 || w[0] % group_ != 0 || w[1] * group_ != x[1]) {
      return InvalidArgument("X " + ShapeToString(x) + " and W " + ShapeToString(w) +
                             " do not fit group " + std::to_string(group_));
    }
    KILN_ASSIGN_OR_RETURN(WindowGeometry g, ResolveWindow(ctx.attrs(), {x.begin() + 2, x.end()},
                                                          {w.begin() + 2, w.end()}, false));
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    KILN_RETURN_IF_ERROR(plain_weights_.Bind<T>(ctx.input(1)));
    batch_ = x[0];
    in_channels_ = x[1];
    out_channels_ = w[0];
    in_ = ToDims3(g.input);
    kernel_ = ToDims3(g.kernel);
    out_ = ToDims3(g.output);
    stride_ = ToDims3(g.strides);
    dilation_ = ToDims3(g.dilations);
    pad_ = ToDims3(g.pads_begin, 0);
    return Status::Ok();
  }

  // One output plane of float accumulators.
  size_t ScratchBytes() const override { return static_cast<size_t>(out_.size()) * sizeof(float); }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    const T* x = inputs[0].as<const T>();
    const T* w = plain_weights_.Get<T>(inputs[1]);
    const T* bias = inputs.size() > 2 ? inputs[2].as<const T>() : nullptr;
    // FusedConv's residual has the output's shape; it may be the output's own buffer.
    const T* residual = inputs.size() > 3 ? inputs[3].as<const T>() : nullptr;
    T* y = outputs[0].as<T>();
    float* acc = static_cast<float*>(scratch);
    const int64_t icpg = in_channels_ / group_;  // input channels per group
    const int64_t ocpg = out_channels_ / group_;
    const int64_t in_plane = in_.size();
    const int64_t out_plane = out_.size();
    const int64_t k_size = kernel_.size();
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t oc = 0; oc < out_channels_; ++oc) {
        const float b = bias ? Elem<T>::Load(bias[oc]) : 0.f;
        for (int64_t i = 0; i < out_plane; ++i) acc[i] = b;
        const int64_t g = oc / ocpg;
        for (int64_t icg = 0; icg < icpg; ++icg) {
          const T* xp = x + (n * in_channels_ + g * icpg + icg) * in_plane;
          const T* wk = w + (oc * icpg + icg) * k_size;
          AccumulateChannel(xp, wk, acc);
        }
        const int64_t plane = (n * out_channels_ + oc) * out_plane;
        if (residual) {
          for (int64_t i = 0; i < out_plane; ++i) acc[i] += Elem<T>::Load(residual[plane + i]);
        }
        ApplyActivationInPlace(act_, acc, out_plane);
        T* yp = y + plane;
        for (int64_t i = 0; i < out_plane; ++i) yp[i] = Elem<T>::Store(acc[i]);
      }
    }
    return Status::Ok();
  }

 private:
  // acc[o] += sum over kernel taps of w * x for one input channel. Loops run over kernel taps
  // outside and output positions inside, with the valid output range of each tap hoisted.
  void AccumulateChannel(const T* xp, const T* wk, float* acc) const {
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
          const float wv = Elem<T>::Load(wk[(kd * kernel_.h + kh) * kernel_.w + kw]);
          for (int64_t od = d0; od < d1; ++od) {
            const int64_t id = od * stride_.d + off_d;
            for (int64_t oh = h0; oh < h1; ++oh) {
              const int64_t ih = oh * stride_.h + off_h;
              const T* xrow = xp + (id * in_.h + ih) * in_.w;
              float* arow = acc + (od * out_.h + oh) * out_.w;
              for (int64_t ow = w0; ow < w1; ++ow) {
                arow[ow] += wv * Elem<T>::Load(xrow[ow * stride_.w + off_w]);
              }
            }
          }
        }
      }
    }
  }

  ActivationParams act_;        // none for plain Conv
  PlainWeights plain_weights_;  // W as T, row-major (FusedConv may store it packed or f16)
  int64_t group_ = 1, batch_ = 0, in_channels_ = 0, out_channels_ = 0;
  Dims3 in_, kernel_, out_, stride_, dilation_, pad_;
};

}  // namespace

void RegisterConvKernels(KernelRegistry& r) {
  RegisterKernel<ConvKernel<float>>(r, OpType::kConv, DType::kF32);
  RegisterKernel<ConvKernel<Float16>>(r, OpType::kConv, DType::kF16);
  // FusedConv's weights may be packed or f16 (read through PlainWeights).
  RegisterKernel<ConvKernel<float>>(r, OpType::kFusedConv, DType::kF32, kExecutorCpu,
                                    Isa::kReference, Layout::kPlain, AnyWeightLayoutTraits());
  RegisterKernel<ConvKernel<Float16>>(r, OpType::kFusedConv, DType::kF16, kExecutorCpu,
                                      Isa::kReference, Layout::kPlain, AnyWeightLayoutTraits());
  // NCHW8c output (the compiler's blocked-layout pass), its data inputs blocked or plain: the
  // same loop nest on plain copies.
  RegisterKernel<NCHW8cAdapter<ConvKernel<float>>>(r, OpType::kFusedConv, DType::kF32, kExecutorCpu,
                                                   Isa::kReference, Layout::kNCHW8c,
                                                   AnyLayoutTraits());
}

}  // namespace kiln::nn_ref
