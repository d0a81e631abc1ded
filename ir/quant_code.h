// The integer code ranges of quantized values, shared by the schemas, the quantizer and the
// integer kernels (one definition, so a clamp and its check never disagree).
#pragma once

#include <cstdint>
#include <limits>

#include "ir/dtype.h"

namespace kiln {

// u8 [0, 255], i8 [-128, 127], i16 [-32768, 32767]; i32 (and any other type: accumulators)
// the int32 range.
inline int32_t QuantCodeMin(DType t) {
  switch (t) {
    case DType::kU8:
      return 0;
    case DType::kI8:
      return -128;
    case DType::kI16:
      return -32768;
    default:
      return std::numeric_limits<int32_t>::min();
  }
}

inline int32_t QuantCodeMax(DType t) {
  switch (t) {
    case DType::kU8:
      return 255;
    case DType::kI8:
      return 127;
    case DType::kI16:
      return 32767;
    default:
      return std::numeric_limits<int32_t>::max();
  }
}

// The 8-bit code types (u8, i8): the int8 kernels' operands.
inline bool Is8BitCode(DType t) { return t == DType::kU8 || t == DType::kI8; }

// The code a stored byte stands for in an 8-bit code type (i8: two's complement).
inline int32_t ByteCode(DType t, uint8_t b) {
  return t == DType::kI8 ? static_cast<int8_t>(b) : static_cast<int32_t>(b);
}

}  // namespace kiln
