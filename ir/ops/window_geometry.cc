// Sliding-window geometry of Conv, ConvTranspose and the pools (ONNX opset-17 rules).
#include "ir/ops/window_geometry.h"

#include <algorithm>
#include <string>

namespace kiln {
namespace {

std::string Join(const std::vector<int64_t>& v) { return ShapeToString(v); }

// Reads an optional per-axis list attribute: absent -> `def` repeated; present -> exact length.
Expected<std::vector<int64_t>> PerAxis(const Attributes& attrs, const char* name, size_t rank,
                                       int64_t def, int64_t min_value) {
  if (!attrs.Has(name)) return std::vector<int64_t>(rank, def);
  std::vector<int64_t> v = attrs.GetInts(name);
  if (v.size() != rank) {
    return InvalidArgument(std::string(name) + " " + Join(v) + " must have " +
                           std::to_string(rank) + " entries (one per spatial axis)");
  }
  for (int64_t x : v) {
    if (x < min_value) {
      return InvalidArgument(std::string(name) + " " + Join(v) +
                             " must be >= " + std::to_string(min_value));
    }
  }
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
  for (size_t i = 0; i < rank; ++i) {
    g.pads_begin[i] = pads[i];
    g.pads_end[i] = pads[rank + i];
    if (pads[i] < 0 || pads[rank + i] < 0) {
      return InvalidArgument("pads " + Join(pads) + " must be non-negative");
    }
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
  return k;
}

namespace {

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
  for (int64_t k : kernel) {
    if (k <= 0) return InvalidArgument("kernel extents " + Join(kernel) + " must be positive");
  }
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
    const int64_t extent = (kernel[i] - 1) * g.dilations[i] + 1;  // dilated window
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      // Output covers ceil(in / stride) windows; the padding needed is split, the odd unit
      // going to the end (UPPER) or the beginning (LOWER).
      const int64_t out = (input[i] + g.strides[i] - 1) / g.strides[i];
      const int64_t total = std::max<int64_t>(0, (out - 1) * g.strides[i] + extent - input[i]);
      const int64_t small = total / 2;
      g.pads_begin[i] = auto_pad == "SAME_UPPER" ? small : total - small;
      g.pads_end[i] = total - g.pads_begin[i];
      g.output[i] = out;
      continue;
    }
    if (auto_pad == "VALID") g.pads_begin[i] = g.pads_end[i] = 0;
    const int64_t span = input[i] + g.pads_begin[i] + g.pads_end[i] - extent;
    if (span < 0) {
      return InvalidArgument("window of extent " + std::to_string(extent) + " (kernel " +
                             Join(kernel) + ", dilations " + Join(g.dilations) +
                             ") is larger than padded input axis " + std::to_string(i) + " (" +
                             std::to_string(input[i]) + " + pads)");
    }
    int64_t out = (ceil_mode ? (span + g.strides[i] - 1) / g.strides[i] : span / g.strides[i]) + 1;
    // With ceil_mode the last window must still start inside the input or the begin padding.
    if (ceil_mode && (out - 1) * g.strides[i] >= input[i] + g.pads_begin[i]) --out;
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
  } else if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
    target.resize(rank);
    for (size_t i = 0; i < rank; ++i) target[i] = input[i] * g.strides[i];
  }
  g.output.assign(rank, 0);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t full = g.strides[i] * (input[i] - 1) + out_pad[i] +
                         (kernel[i] - 1) * g.dilations[i] + 1;  // unpadded output extent
    if (!target.empty()) {
      if (target[i] <= 0) return InvalidArgument("output_shape entries must be positive");
      // ONNX splits total padding with floor division (it may be negative when output_shape
      // asks for more than the full extent, which then grows the output at the end).
      const int64_t total = full - target[i];
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
      g.output[i] = full - g.pads_begin[i] - g.pads_end[i];
      if (g.output[i] <= 0) {
        return InvalidArgument("pads " + Join(attrs.GetInts("pads")) +
                               " leave no output along spatial axis " + std::to_string(i));
      }
    }
  }
  return g;
}

}  // namespace kiln
