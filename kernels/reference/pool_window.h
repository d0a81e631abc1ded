// The sliding-window geometry shared by the pooling kernels (float pools in pool.cc and the
// quantized average pool): normalised to 3 spatial axes, with each window's valid tap range.
#pragma once

#include "ir/ops/window_geometry.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {

// Geometry common to MaxPool and AveragePool, normalised to 3 spatial axes.
class PoolBase : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    if (x.size() < 3 || x.size() > 5) {
      return Unsupported("pools support 1-3 spatial axes, X is " + ShapeToString(x));
    }
    KILN_ASSIGN_OR_RETURN(auto kernel, PoolKernelShape(ctx.attrs(), x.size() - 2));
    const bool ceil_mode = ctx.attrs().GetInt("ceil_mode", 0) != 0;
    KILN_ASSIGN_OR_RETURN(WindowGeometry g,
                          ResolveWindow(ctx.attrs(), {x.begin() + 2, x.end()}, kernel, ceil_mode));
    planes_ = x[0] * x[1];
    in_ = ToDims3(g.input);
    kernel_ = ToDims3(g.kernel);
    out_ = ToDims3(g.output);
    stride_ = ToDims3(g.strides);
    dilation_ = ToDims3(g.dilations);
    pad_ = ToDims3(g.pads_begin, 0);
    pad_end_ = ToDims3(g.pads_end, 0);
    return Status::Ok();
  }

 protected:
  // Calls visit(window-start offsets, valid tap ranges) for each output position, in order.
  struct Window {
    int64_t d, h, w;                       // input coordinate of tap 0 (may be negative)
    int64_t kd0, kd1, kh0, kh1, kw0, kw1;  // taps that land inside the input
  };
  template <typename Visit>
  void ForEachWindow(Visit&& visit) const {
    Window win;
    for (int64_t od = 0; od < out_.d; ++od) {
      win.d = od * stride_.d - pad_.d;
      ValidRange(win.d, dilation_.d, in_.d, kernel_.d, &win.kd0, &win.kd1);
      for (int64_t oh = 0; oh < out_.h; ++oh) {
        win.h = oh * stride_.h - pad_.h;
        ValidRange(win.h, dilation_.h, in_.h, kernel_.h, &win.kh0, &win.kh1);
        for (int64_t ow = 0; ow < out_.w; ++ow) {
          win.w = ow * stride_.w - pad_.w;
          ValidRange(win.w, dilation_.w, in_.w, kernel_.w, &win.kw0, &win.kw1);
          visit(win);
        }
      }
    }
  }

  // Taps inside input + pads: padding counts, the overhang that ceil_mode adds does not.
  int64_t PaddedTaps(const Window& win) const {
    int64_t lo, hi, n = 1;
    ValidRange(win.d + pad_.d, dilation_.d, in_.d + pad_.d + pad_end_.d, kernel_.d, &lo, &hi);
    n *= hi - lo;
    ValidRange(win.h + pad_.h, dilation_.h, in_.h + pad_.h + pad_end_.h, kernel_.h, &lo, &hi);
    n *= hi - lo;
    ValidRange(win.w + pad_.w, dilation_.w, in_.w + pad_.w + pad_end_.w, kernel_.w, &lo, &hi);
    return n * (hi - lo);
  }

  int64_t planes_ = 0;
  Dims3 in_, kernel_, out_, stride_, dilation_, pad_, pad_end_;
};

}  // namespace kiln::nn_ref
