// Element types of IR values. Values are stable: they are written into model files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace kiln {

enum class DType : int32_t {
  kUndefined = 0,
  kF32 = 1,
  kF16 = 2,
  kI8 = 3,
  kU8 = 4,
  kI32 = 5,
  kI64 = 6,
  kBool = 7,  // one byte per element, 0 or 1
  kI16 = 8,   // 16-bit quantized activations and weights (format 1.6)
};

size_t DTypeSize(DType t);
std::string_view DTypeName(DType t);  // "f32", "i64", ...
std::optional<DType> DTypeFromName(std::string_view name);
bool IsFloat(DType t);
bool IsInteger(DType t);  // i8, u8, i16, i32, i64 (not bool)

// C++ type for each dtype; f16 is stored as its raw 16 bits.
struct Float16 {
  uint16_t bits;
};
float HalfToFloat(uint16_t h);
uint16_t FloatToHalf(float f);  // round to nearest even

template <typename T> struct DTypeOf;
template <> struct DTypeOf<float> { static constexpr DType value = DType::kF32; };
template <> struct DTypeOf<Float16> { static constexpr DType value = DType::kF16; };
template <> struct DTypeOf<int8_t> { static constexpr DType value = DType::kI8; };
template <> struct DTypeOf<uint8_t> { static constexpr DType value = DType::kU8; };
template <> struct DTypeOf<int16_t> { static constexpr DType value = DType::kI16; };
template <> struct DTypeOf<int32_t> { static constexpr DType value = DType::kI32; };
template <> struct DTypeOf<int64_t> { static constexpr DType value = DType::kI64; };
template <> struct DTypeOf<bool> { static constexpr DType value = DType::kBool; };

}  // namespace kiln
