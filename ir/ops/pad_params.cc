// ResolvePad: Pad's mode, axes and per-axis pads against an input shape.
#include "ir/ops/pad_params.h"

#include <algorithm>

namespace kiln {

Expected<PadParams> ResolvePad(const Attributes& attrs, const Shape& x,
                               const std::vector<int64_t>& pads, const std::vector<int64_t>* axes) {
  PadParams p;
  const std::string mode = attrs.GetString("mode", "constant");
  if (mode == "constant") {
    p.mode = PadMode::kConstant;
  } else if (mode == "reflect") {
    p.mode = PadMode::kReflect;
  } else if (mode == "edge") {
    p.mode = PadMode::kEdge;
  } else if (mode == "wrap") {
    p.mode = PadMode::kWrap;
  } else {
    return InvalidArgument("Pad mode '" + mode + "' is not one of constant, reflect, edge, wrap");
  }
  const int64_t rank = static_cast<int64_t>(x.size());
  std::vector<int64_t> order;
  if (axes) {
    std::vector<bool> seen(x.size(), false);
    for (int64_t a : *axes) {
      int64_t axis = a;
      if (!NormalizeAxis(axis, rank)) {
        return InvalidArgument("Pad axis " + std::to_string(a) + " is out of range for rank " +
                               std::to_string(rank));
      }
      if (seen[static_cast<size_t>(axis)]) {
        return InvalidArgument("Pad axis " + std::to_string(a) + " is repeated");
      }
      seen[static_cast<size_t>(axis)] = true;
      order.push_back(axis);
    }
  } else {
    for (int64_t i = 0; i < rank; ++i) order.push_back(i);
  }
  const size_t n = order.size();
  if (pads.size() != 2 * n) {
    return InvalidArgument("pads has " + std::to_string(pads.size()) + " entries, expected " +
                           std::to_string(2 * n) + (axes ? " (two per listed axis)" : "") +
                           " for a rank-" + std::to_string(rank) + " input");
  }
  // |pads| <= 2^40 (ir/shape.h limits) keeps x + begin + end inside int64.
  KILN_RETURN_IF_ERROR(CheckRange(pads, -kMaxDim, kMaxDim, "pads"));
  p.pads.assign(2 * x.size(), 0);
  for (size_t i = 0; i < n; ++i) {
    p.pads[static_cast<size_t>(order[i])] = pads[i];
    p.pads[x.size() + static_cast<size_t>(order[i])] = pads[n + i];
  }
  p.output.resize(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const int64_t b = p.pads[i];
    const int64_t e = p.pads[x.size() + i];
    p.output[i] = x[i] + b + e;
    if (p.output[i] < 0) {
      return InvalidArgument("pads " + ShapeToString(pads) + " crop axis " + std::to_string(i) +
                             " below zero");
    }
    const int64_t grow = std::max<int64_t>(std::max<int64_t>(b, e), 0);
    if (grow > 0 && (p.mode == PadMode::kEdge || p.mode == PadMode::kWrap) && x[i] == 0) {
      return InvalidArgument(mode + " padding of an empty axis " + std::to_string(i));
    }
    // Reflection mirrors without repeating the border, so it can add at most dim-1 per side.
    if (grow > 0 && p.mode == PadMode::kReflect && grow > x[i] - 1) {
      return InvalidArgument("reflect pads " + ShapeToString(pads) + " exceed axis " +
                             std::to_string(i) + " extent " + std::to_string(x[i]) + " - 1");
    }
  }
  return p;
}

}  // namespace kiln
