// Pad parameters (mode and full per-axis pads) shared by Pad's inference and its kernels.
#pragma once

#include <string>
#include <vector>

#include "ir/attribute.h"
#include "ir/shape.h"
#include "ir/status.h"

namespace kiln {

enum class PadMode { kConstant, kReflect, kEdge, kWrap };

struct PadParams {
  PadMode mode = PadMode::kConstant;
  std::vector<int64_t> pads;  // [begin_0..begin_{r-1}, end_0..end_{r-1}], one pair per axis
  Shape output;
};

// Pad-11..23 semantics: `pads` holds 2 * len(axes) entries for the axes listed in `axes`
// (Pad-18; null means every axis in order, the opset-11 form); negative axes count from the
// end. Modes constant, reflect, edge and wrap (Pad-19). Negative pads crop. |pads| <= 2^40.
Expected<PadParams> ResolvePad(const Attributes& attrs, const Shape& x,
                               const std::vector<int64_t>& pads, const std::vector<int64_t>* axes);

}  // namespace kiln
