// Reference ConvTranspose: each input element scatters kernel-weighted copies into the output
// (1-3 spatial axes, groups, strides, dilations, pads, output_padding/output_shape).
#include "ir/ops/window_geometry.h"
#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class ConvTransposeKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    const Shape& w = ctx.input(1).shape;
    if (x.size() < 3 || x.size() > 5 || w.size() != x.size()) {
      return Unsupported("ConvTranspose supports 1-3 spatial axes, X is " + ShapeToString(x));
    }
    group_ = ctx.attrs().GetInt("group", 1);
    if (group_ <= 0 || w[0] != x[1] || x[1] % group_ != 0) {
      return InvalidArgument("X " + ShapeToString(x) + " and W " + ShapeToString(w) +
                             " do not fit group " + std::to_string(group_));
    }
    KILN_ASSIGN_OR_RETURN(
        WindowGeometry g,
        ResolveTransposedWindow(ctx.attrs(), {x.begin() + 2, x.end()}, {w.begin() + 2, w.end()}));
    batch_ = x[0];
    in_channels_ = x[1];
    out_channels_ = w[1] * group_;
    in_ = ToDims3(g.input);
    kernel_ = ToDims3(g.kernel);
    out_ = ToDims3(g.output);
    stride_ = ToDims3(g.strides);
    dilation_ = ToDims3(g.dilations);
    pad_ = ToDims3(g.pads_begin, 0);
    return Status::Ok();
  }

  size_t ScratchBytes() const override { return static_cast<size_t>(out_.size()) * sizeof(float); }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    const T* x = inputs[0].as<const T>();
    const T* w = inputs[1].as<const T>();
    const T* bias = inputs.size() > 2 ? inputs[2].as<const T>() : nullptr;
    T* y = outputs[0].as<T>();
    float* acc = static_cast<float*>(scratch);
    const int64_t icpg = in_channels_ / group_;
    const int64_t ocpg = out_channels_ / group_;
    const int64_t in_plane = in_.size();
    const int64_t out_plane = out_.size();
    const int64_t k_size = kernel_.size();
    for (int64_t n = 0; n < batch_; ++n) {
      for (int64_t oc = 0; oc < out_channels_; ++oc) {
        const float b = bias ? Elem<T>::Load(bias[oc]) : 0.f;
        for (int64_t i = 0; i < out_plane; ++i) acc[i] = b;
        const int64_t g = oc / ocpg;
        const int64_t ocg = oc % ocpg;
        for (int64_t icg = 0; icg < icpg; ++icg) {
          const int64_t ic = g * icpg + icg;
          const T* xp = x + (n * in_channels_ + ic) * in_plane;
          const T* wk = w + (ic * ocpg + ocg) * k_size;  // W is [C, M/group, k...]
          ScatterChannel(xp, wk, acc);
        }
        T* yp = y + (n * out_channels_ + oc) * out_plane;
        for (int64_t i = 0; i < out_plane; ++i) yp[i] = Elem<T>::Store(acc[i]);
      }
    }
    return Status::Ok();
  }

 private:
  // Input position i and tap k land on output i * stride + k * dilation - pad; per tap, the
  // input range whose landing spot lies inside the output is hoisted.
  void ScatterChannel(const T* xp, const T* wk, float* acc) const {
    for (int64_t kd = 0; kd < kernel_.d; ++kd) {
      const int64_t off_d = kd * dilation_.d - pad_.d;
      int64_t d0, d1;
      ValidRange(off_d, stride_.d, out_.d, in_.d, &d0, &d1);
      for (int64_t kh = 0; kh < kernel_.h; ++kh) {
        const int64_t off_h = kh * dilation_.h - pad_.h;
        int64_t h0, h1;
        ValidRange(off_h, stride_.h, out_.h, in_.h, &h0, &h1);
        for (int64_t kw = 0; kw < kernel_.w; ++kw) {
          const int64_t off_w = kw * dilation_.w - pad_.w;
          int64_t w0, w1;
          ValidRange(off_w, stride_.w, out_.w, in_.w, &w0, &w1);
          const float wv = Elem<T>::Load(wk[(kd * kernel_.h + kh) * kernel_.w + kw]);
          for (int64_t id = d0; id < d1; ++id) {
            const int64_t od = id * stride_.d + off_d;
            for (int64_t ih = h0; ih < h1; ++ih) {
              const int64_t oh = ih * stride_.h + off_h;
              const T* xrow = xp + (id * in_.h + ih) * in_.w;
              float* arow = acc + (od * out_.h + oh) * out_.w;
              for (int64_t iw = w0; iw < w1; ++iw) {
                arow[iw * stride_.w + off_w] += wv * Elem<T>::Load(xrow[iw]);
              }
            }
          }
        }
      }
    }
  }

  int64_t group_ = 1, batch_ = 0, in_channels_ = 0, out_channels_ = 0;
  Dims3 in_, kernel_, out_, stride_, dilation_, pad_;
};

}  // namespace

void RegisterConvTransposeKernels(KernelRegistry& r) {
  RegisterKernel<ConvTransposeKernel<float>>(r, OpType::kConvTranspose, DType::kF32);
  RegisterKernel<ConvTransposeKernel<Float16>>(r, OpType::kConvTranspose, DType::kF16);
}

}  // namespace kiln::nn_ref
