// Sliding-window geometry of Conv, ConvTranspose and the pools (ONNX opset-17 rules).
#include "ir/ops/window_geometry.h"

#include <algorithm>
#include <string>

namespace kiln {
namespace {

std::string Join(const std::vector<int64_t>& v) { return ShapeToString(v); }

// Reads an optional per-axis list attribute: absent -> `def` repeated; present -> exact length,
// every entry in [min_value, kMaxDim] (ir/shape.h states the limits).
Expected<std::vector<int64_t>> PerAxis(const Attributes& attrs, const char* name, size_t rank,
                                       int64_t def, int64_t min_value) {
  if (!attrs.Has(name)) return std::vector<int64_t>(rank, def);
  std::vector<int64_t> v = attrs.GetInts(name);
  if (v.size() != rank) {
    return InvalidArgument(std::string(name) + " " + Join(v) + " must have " +
                           std::to_string(rank) + " entries (one per spatial axis)");
  }
  KILN_RETURN_IF_ERROR(CheckRange(v, min_value, kMaxDim, name));
  return v;
}

Status CheckAutoPad(const std::string& auto_pad) {
  if (auto_pad == "NOTSET" || auto_pad == "VALID" || auto_pad == "SAME_UPPER" ||
      auto_pad == "SAME_LOWER") {
    return Status::Ok();
  }
  return InvalidArgument("auto_pad '" + auto_pad +
                         "' is not one of NOTSET, VALID, SAME_UPPER, SAME_LOWER");
}

// Explicit pads [b1..bn, e1..en]; all zero when absent.
Status ReadPads(const Attributes& attrs, WindowGeometry& g) {
  const size_t rank = g.rank();
  g.pads_begin.assign(rank, 0);
  g.pads_end.assign(rank, 0);
  if (!attrs.Has("pads")) return Status::Ok();
  std::vector<int64_t> pads = attrs.GetInts("pads");
  if (pads.size() != 2 * rank) {
    return InvalidArgument("pads " + Join(pads) + " must have " + std::to_string(2 * rank) +
                           " entries (begin and end per spatial axis)");
  }
  KILN_RETURN_IF_ERROR(CheckRange(pads, 0, kMaxDim, "pads"));
  for (size_t i = 0; i < rank; ++i) {
    g.pads_begin[i] = pads[i];
    g.pads_end[i] = pads[rank + i];
  }
  return Status::Ok();
}

int64_t FloorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

}  // namespace

Expected<std::vector<int64_t>> PoolKernelShape(const Attributes& attrs, size_t spatial_rank) {
  if (!attrs.Has("kernel_shape")) return InvalidArgument("kernel_shape attribute is required");
  std::vector<int64_t> k = attrs.GetInts("kernel_shape");
  if (k.size() != spatial_rank) {
    return InvalidArgument("kernel_shape " + Join(k) + " must have " +
                           std::to_string(spatial_rank) + " entries for a rank-" +
                           std::to_string(spatial_rank + 2) + " input");
  }
  KILN_RETURN_IF_ERROR(CheckRange(k, 1, kMaxDim, "kernel_shape"));
  return k;
}

namespace {

// (k - 1) * d + 1: the extent a dilated window covers. With k, d <= 2^40 the product may still
// leave int64, hence checked.
Expected<int64_t> DilatedExtent(int64_t k, int64_t d) {
  KILN_ASSIGN_OR_RETURN(const int64_t span, CheckedMul(k - 1, d, "dilated kernel extent"));
  return span + 1;
}

// What ordinary and transposed windows share: kernel checks, strides and dilations.
Expected<WindowGeometry> StartWindow(const Attributes& attrs, const std::vector<int64_t>& input,
                                     const std::vector<int64_t>& kernel) {
  WindowGeometry g;
  const size_t rank = input.size();
  if (rank == 0) return InvalidArgument("input needs at least one spatial axis");
  if (kernel.size() != rank) {
    return InvalidArgument("kernel " + Join(kernel) + " does not match the " +
                           std::to_string(rank) + " spatial axes of the input");
  }
  KILN_RETURN_IF_ERROR(CheckRange(kernel, 1, kMaxDim, "kernel extents"));
  KILN_RETURN_IF_ERROR(CheckRange(input, 0, kMaxDim, "input spatial extents"));
  g.input = input;
  g.kernel = kernel;
  KILN_ASSIGN_OR_RETURN(g.strides, PerAxis(attrs, "strides", rank, 1, 1));
  KILN_ASSIGN_OR_RETURN(g.dilations, PerAxis(attrs, "dilations", rank, 1, 1));
  return g;
}

}  // namespace

Expected<WindowGeometry> ResolveWindow(const Attributes& attrs, const std::vector<int64_t>& input,
                                       const std::vector<int64_t>& kernel, bool ceil_mode) {
  KILN_ASSIGN_OR_RETURN(WindowGeometry g, StartWindow(attrs, input, kernel));
  const size_t rank = input.size();
  const std::string auto_pad = attrs.GetString("auto_pad", "NOTSET");
  KILN_RETURN_IF_ERROR(CheckAutoPad(auto_pad));
  KILN_RETURN_IF_ERROR(ReadPads(attrs, g));
  g.output.assign(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    KILN_ASSIGN_OR_RETURN(const int64_t extent, DilatedExtent(kernel[i], g.dilations[i]));
    const int64_t stride = g.strides[i];
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // Output covers ceil(in / stride) windows; the padding needed is split, the odd unit
      // going to the end (UPPER) or the beginning (LOWER). in, stride <= 2^40: no overflow.
      const int64_t out = (input[i] + stride - 1) / stride;
      KILN_ASSIGN_OR_RETURN(const int64_t covered, CheckedMul(out - 1, stride, "SAME padding"));
      KILN_ASSIGN_OR_RETURN(const int64_t reach, CheckedAdd(covered, extent, "SAME padding"));
      const int64_t total = std::max<int64_t>(0, reach - input[i]);
      const int64_t small = total / 2;
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      g.pads_end[i] = total - g.pads_begin[i];
      g.output[i] = out;
      continue;
    }
    if (auto_pad == "VALID") g.pads_begin[i] = g.pads_end[i] = 0;
    // in and pads are each <= 2^40, so their sum fits; extent may not be small.
    const int64_t padded = input[i] + g.pads_begin[i] + g.pads_end[i];
    if (padded < extent) {
      return InvalidArgument("window of extent " + std::to_string(extent) + " (kernel " +
                             Join(kernel) + ", dilations " + Join(g.dilations) +
                             ") is larger than padded input axis " + std::to_string(i) + " (" +
                             std::to_string(input[i]) + " + pads)");
    }
    const int64_t span = padded - extent;
    int64_t out = (ceil_mode ? span / stride + (span % stride != 0) : span / stride) + 1;
    // With ceil_mode the last window must still start inside the input or the begin padding.
    // (out - 1) * stride <= span + stride - 1 < 2^42: no overflow.
    if (ceil_mode && (out - 1) * stride >= input[i] + g.pads_begin[i]) --out;
    g.output[i] = out;
  }
  return g;
}

Expected<WindowGeometry> ResolveTransposedWindow(const Attributes& attrs,
                                                 const std::vector<int64_t>& input,
                                                 const std::vector<int64_t>& kernel) {
  KILN_ASSIGN_OR_RETURN(WindowGeometry g, StartWindow(attrs, input, kernel));
  const size_t rank = input.size();
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> out_pad, PerAxis(attrs, "output_padding", rank, 0, 0));
  for (size_t i = 0; i < rank; ++i) {
    if (out_pad[i] >= std::max(g.strides[i], g.dilations[i])) {
      return InvalidArgument("output_padding " + Join(out_pad) +
                             " must be smaller than the stride or dilation of its axis");
    }
  }
  const std::string auto_pad = attrs.GetString("auto_pad", "NOTSET");
  KILN_RETURN_IF_ERROR(CheckAutoPad(auto_pad));
  KILN_RETURN_IF_ERROR(ReadPads(attrs, g));

  std::vector<int64_t> target;  // requested output extents, empty when derived from pads
  if (attrs.Has("output_shape")) {
    target = attrs.GetInts("output_shape");
    // Some exporters write the full [N, C, spatial...] shape; keep the spatial tail.
    if (target.size() == rank + 2) target.erase(target.begin(), target.begin() + 2);
    if (target.size() != rank) {
      return InvalidArgument("output_shape " + Join(attrs.GetInts("output_shape")) +
                             " must have one entry per spatial axis (" + std::to_string(rank) +
                             ")");
    }
    KILN_RETURN_IF_ERROR(CheckRange(target, 1, kMaxDim, "output_shape"));
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    target.resize(rank);
    for (size_t i = 0; i < rank; ++i) {
      KILN_ASSIGN_OR_RETURN(target[i], CheckedMul(input[i], g.strides[i], "SAME output extent"));
    }
  }
  g.output.assign(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    // Unpadded output extent: stride * (in - 1) + output_padding + (k - 1) * dilation + 1.
    KILN_ASSIGN_OR_RETURN(const int64_t extent, DilatedExtent(kernel[i], g.dilations[i]));
    KILN_ASSIGN_OR_RETURN(const int64_t strided,
                          CheckedMul(g.strides[i], input[i] - 1, "transposed output extent"));
    KILN_ASSIGN_OR_RETURN(const int64_t partial,
                          CheckedAdd(strided, out_pad[i], "transposed output extent"));
    KILN_ASSIGN_OR_RETURN(const int64_t full,
                          CheckedAdd(partial, extent, "transposed output extent"));
    if (!target.empty()) {
      if (target[i] <= 0) return InvalidArgument("output_shape entries must be positive");
      // ONNX splits total padding with floor division (it may be negative when output_shape
      // asks for more than the full extent, which then grows the output at the end).
      KILN_ASSIGN_OR_RETURN(const int64_t total, CheckedSub(full, target[i], "transposed padding"));
      const int64_t half = FloorDiv(total, 2);
      if (auto_pad == "SAME_UPPER") {
        g.pads_begin[i] = half;
        g.pads_end[i] = total - half;
      } else {
        g.pads_begin[i] = total - half;
        g.pads_end[i] = half;
      }
      g.output[i] = target[i];
    } else {
      if (auto_pad == "VALID") g.pads_begin[i] = g.pads_end[i] = 0;
      KILN_ASSIGN_OR_RETURN(const int64_t cut,
                            CheckedAdd(g.pads_begin[i], g.pads_end[i], "transposed padding"));
      KILN_ASSIGN_OR_RETURN(g.output[i], CheckedSub(full, cut, "transposed output extent"));
      if (g.output[i] <= 0) {
        return InvalidArgument("pads " + Join(attrs.GetInts("pads")) +
                               " leave no output along spatial axis " + std::to_string(i));
      }
    }
  }
  return g;
}

}  // namespace kiln
