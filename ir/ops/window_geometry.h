// Sliding-window geometry (kernel, strides, dilations, pads, output size) shared by the
// inference of Conv, ConvTranspose and the pools and by their kernels, so both agree exactly.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/attribute.h"
#include "ir/shape.h"
#include "ir/status.h"

namespace kiln {

// Every vector holds one entry per spatial axis.
struct WindowGeometry {
  std::vector<int64_t> input;   // spatial input extents
  std::vector<int64_t> kernel;  // kernel extents (undilated)
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads_begin;  // may be negative only for ConvTranspose with output_shape
  std::vector<int64_t> pads_end;
  std::vector<int64_t> output;  // spatial output extents
  size_t rank() const { return input.size(); }
};

// Conv / pool geometry from the auto_pad, strides, dilations and pads attributes. `kernel` comes
// from W's shape (Conv) or kernel_shape (pools); `ceil_mode` is the pools' attribute.
Expected<WindowGeometry> ResolveWindow(const Attributes& attrs, const std::vector<int64_t>& input,
                                       const std::vector<int64_t>& kernel, bool ceil_mode);

// ConvTranspose geometry: additionally output_padding and output_shape. Output extents are
// stride*(in-1) + output_padding + (k-1)*dilation + 1 - pads, or output_shape when given.
Expected<WindowGeometry> ResolveTransposedWindow(const Attributes& attrs,
                                                 const std::vector<int64_t>& input,
                                                 const std::vector<int64_t>& kernel);

// Reads kernel_shape (pools: required) and checks it against the spatial rank.
Expected<std::vector<int64_t>> PoolKernelShape(const Attributes& attrs, size_t spatial_rank);

}  // namespace kiln
