// The reduction of ScatterND and ScatterElements (none, add, mul, max, min): how an update
// combines with the element it lands on, shared by both reference kernels.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "ir/attribute.h"
#include "ir/status.h"

namespace kiln {

enum class ScatterReduction { kNone, kAdd, kMul, kMax, kMin };

// The node's `reduction` attribute (default "none"); the schema has already refused others.
inline Expected<ScatterReduction> ReadScatterReduction(const Attributes& attrs) {
  const std::string r = attrs.GetString("reduction", "none");
  if (r == "none") return ScatterReduction::kNone;
  if (r == "add") return ScatterReduction::kAdd;
  if (r == "mul") return ScatterReduction::kMul;
  if (r == "max") return ScatterReduction::kMax;
  if (r == "min") return ScatterReduction::kMin;
  return InvalidArgument("reduction '" + r + "' is not one of none, add, mul, max, min");
}

// `old` combined with `update` in compute type C. Integer add/mul wrap (through uint64, as the
// binary kernels do) instead of overflowing into UB; on bool they are or/and.
template <ScatterReduction R, typename C>
C ScatterCombine(C old, C update) {
  if constexpr (R == ScatterReduction::kNone) {
    return update;
  } else if constexpr (R == ScatterReduction::kAdd || R == ScatterReduction::kMul) {
    if constexpr (std::is_same_v<C, bool>) {
      return R == ScatterReduction::kAdd ? (old || update) : (old && update);
    } else if constexpr (std::is_integral_v<C>) {
      const uint64_t a = static_cast<uint64_t>(old), b = static_cast<uint64_t>(update);
      return static_cast<C>(R == ScatterReduction::kAdd ? a + b : a * b);
    } else {
      return R == ScatterReduction::kAdd ? old + update : old * update;
    }
  } else {
    // NaN wins, as numpy's maximum/minimum (the ONNX reference implementation) has it.
    if constexpr (std::is_floating_point_v<C>) {
      if (old != old) return old;
      if (update != update) return update;
    }
    return R == ScatterReduction::kMax ? std::max(old, update) : std::min(old, update);
  }
}

}  // namespace kiln
