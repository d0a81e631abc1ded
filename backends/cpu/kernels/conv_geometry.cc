// Conv2dGeometry from the IR, through the same window resolution as shape inference.
#include "backends/cpu/kernels/conv_geometry.h"

#include <cstdio>

#include "ir/ops/window_geometry.h"

namespace kiln::cpu {

bool Conv2dGeometry::ComputeOutput() {
  const int64_t eff_h = (kernel_h - 1) * dilation_h + 1;
  const int64_t eff_w = (kernel_w - 1) * dilation_w + 1;
  const int64_t span_h = in_h + pad_top + pad_bottom - eff_h;
  const int64_t span_w = in_w + pad_left + pad_right - eff_w;
  if (span_h < 0 || span_w < 0 || stride_h <= 0 || stride_w <= 0) return false;
  out_h = span_h / stride_h + 1;
  out_w = span_w / stride_w + 1;
  return true;
}

std::string Conv2dGeometry::ToString() const {
  char buf[160];
  std::snprintf(buf, sizeof(buf),
                "c%lldx%lldx%lld -> c%lldx%lldx%lld k%lldx%lld s%lldx%lld d%lldx%lld "
                "p%lld,%lld,%lld,%lld g%lld",
                static_cast<long long>(in_c), static_cast<long long>(in_h),
                static_cast<long long>(in_w), static_cast<long long>(out_c),
                static_cast<long long>(out_h), static_cast<long long>(out_w),
                static_cast<long long>(kernel_h), static_cast<long long>(kernel_w),
                static_cast<long long>(stride_h), static_cast<long long>(stride_w),
                static_cast<long long>(dilation_h), static_cast<long long>(dilation_w),
                static_cast<long long>(pad_top), static_cast<long long>(pad_left),
                static_cast<long long>(pad_bottom), static_cast<long long>(pad_right),
                static_cast<long long>(groups));
  return buf;
}

Expected<Conv2dGeometry> ResolveConv2d(const Attributes& attrs, const Shape& x, const Shape& w) {
  if (x.size() != w.size() || (x.size() != 3 && x.size() != 4)) {
    return Unsupported("CPU conv handles 1-D and 2-D convolutions; X is " + ShapeToString(x));
  }
  Conv2dGeometry g;
  g.groups = attrs.GetInt("group", 1);
  if (g.groups <= 0 || x[1] % g.groups != 0 || w[0] % g.groups != 0 || w[1] * g.groups != x[1]) {
    return InvalidArgument("X " + ShapeToString(x) + " and W " + ShapeToString(w) +
                           " do not fit group " + std::to_string(g.groups));
  }
  KILN_ASSIGN_OR_RETURN(WindowGeometry win, ResolveWindow(attrs, {x.begin() + 2, x.end()},
                                                          {w.begin() + 2, w.end()}, false));
  const bool two_d = x.size() == 4;
  g.batch = x[0];
  g.in_c = x[1];
  g.out_c = w[0];
  g.in_h = two_d ? win.input[0] : 1;
  g.in_w = win.input.back();
  g.out_h = two_d ? win.output[0] : 1;
  g.out_w = win.output.back();
  g.kernel_h = two_d ? win.kernel[0] : 1;
  g.kernel_w = win.kernel.back();
  g.stride_h = two_d ? win.strides[0] : 1;
  g.stride_w = win.strides.back();
  g.dilation_h = two_d ? win.dilations[0] : 1;
  g.dilation_w = win.dilations.back();
  g.pad_top = two_d ? win.pads_begin[0] : 0;
  g.pad_bottom = two_d ? win.pads_end[0] : 0;
  g.pad_left = win.pads_begin.back();
  g.pad_right = win.pads_end.back();
  return g;
}

Expected<Conv2dGeometry> F32ConvGeometry(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue) {
    return Unsupported("FusedConv without X or W");
  }
  const Value& x = graph.value(node.inputs[0]);
  const Value& w = graph.value(node.inputs[1]);
  if (x.dtype != DType::kF32 || w.dtype != DType::kF32 || x.shape.size() != 4) {
    return Unsupported("not an f32 2-D convolution");
  }
  for (size_t i = 2; i < node.inputs.size(); ++i) {
    if (node.inputs[i] != kNoValue && graph.value(node.inputs[i]).dtype != DType::kF32) {
      return Unsupported("not an f32 bias/residual");
    }
  }
  return ResolveConv2d(node.attrs, x.shape, w.shape);
}

}  // namespace kiln::cpu
