// Quantization parameters: a slot on every IR value, empty for float tensors.
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

struct QuantParams {
  // One entry for per-tensor quantization, shape[axis] entries for per-axis.
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int64_t axis = -1;  // -1: per tensor

  bool empty() const { return scales.empty(); }
  bool per_axis() const { return axis >= 0; }
};

}  // namespace kiln
