// The 2-D convolution geometry the CPU conv drivers and weight packers share (1-D convs are
// 2-D with height 1). Built from the IR (X/W shapes + Conv attributes) or by hand in tests.
#pragma once

#include <cstdint>
#include <string>

#include "ir/attribute.h"
#include "ir/graph.h"
#include "ir/shape.h"
#include "ir/status.h"

namespace kiln::cpu {

struct Conv2dGeometry {
  int64_t batch = 1;
  int64_t in_c = 0, in_h = 0, in_w = 0;
  int64_t out_c = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  int64_t groups = 1;

  int64_t in_c_per_group() const { return in_c / groups; }
  int64_t out_c_per_group() const { return out_c / groups; }
  int64_t in_plane() const { return in_h * in_w; }
  int64_t out_plane() const { return out_h * out_w; }
  int64_t kernel_size() const { return kernel_h * kernel_w; }
  // The GEMM reduction length per group: input channels x kernel taps.
  int64_t gemm_k() const { return in_c_per_group() * kernel_size(); }
  int64_t macs() const { return batch * out_c * out_plane() * gemm_k(); }
  bool is_depthwise() const { return groups == in_c && groups == out_c && groups > 1; }
  bool is_pointwise() const {  // a 1x1 conv that reads X as the GEMM's B matrix directly
    return kernel_h == 1 && kernel_w == 1 && stride_h == 1 && stride_w == 1 && pad_top == 0 &&
           pad_left == 0 && pad_bottom == 0 && pad_right == 0;
  }
  // Stride 1, undilated, output rows as wide as the input's: every tap reads the input at one
  // offset from the output pixel's index (what ConvLaneTable reads without phase planes).
  bool is_same_width() const {
    return stride_h == 1 && stride_w == 1 && dilation_h == 1 && dilation_w == 1 && out_w == in_w;
  }
  // Fills out_h/out_w from the rest; false when the output would be empty or negative.
  bool ComputeOutput();
  std::string ToString() const;  // "c64x56x56 -> c64 k3x3 s1x1 d1x1 p1,1,1,1 g1"
};

// From X [N, C, (H,) W] and W [M, C/group, (kH,) kW] and the Conv attributes (auto_pad, pads,
// strides, dilations, group). 3-D convolutions are Unsupported (the caller falls back).
Expected<Conv2dGeometry> ResolveConv2d(const Attributes& attrs, const Shape& x, const Shape& w);

// A FusedConv node's geometry when X (rank 4), W and the bias / residual are all f32 (the
// fp32 CPU kernels' nodes); Unsupported otherwise.
Expected<Conv2dGeometry> F32ConvGeometry(const Graph& graph, const Node& node);

}  // namespace kiln::cpu
