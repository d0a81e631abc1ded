// Element storage types of the IR dtypes and conversions between them, shared by Cast and by
// every reference kernel that computes f16 in float or reads bool bytes.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "ir/dtype.h"

namespace kiln {

// A bool element as stored: one byte. Read as `!= 0` so that a non-0/1 byte cannot become an
// invalid C++ bool.
struct BoolByte {
  uint8_t value;
};

// Elem<T>: how a kernel computes on a stored element type T. Compute is float for f16 and
// bool for BoolByte, T itself otherwise.
template <typename T>
struct Elem {
  using Compute = T;
  static Compute Load(T v) { return v; }
  static T Store(Compute v) { return v; }
};
template <>
struct Elem<Float16> {
  using Compute = float;
  static float Load(Float16 v) { return HalfToFloat(v.bits); }
  static Float16 Store(float v) { return Float16{FloatToHalf(v)}; }
};
template <>
struct Elem<BoolByte> {
  using Compute = bool;
  static bool Load(BoolByte v) { return v.value != 0; }
  static BoolByte Store(bool v) { return BoolByte{static_cast<uint8_t>(v ? 1 : 0)}; }
};

// Converts a compute value to another compute type with ONNX Cast semantics: to bool is
// `!= 0`; float to integer truncates toward zero. Out-of-range float->int is undefined in
// ONNX; Kiln saturates to int64 (NaN -> 0) and then wraps to the target width, which matches
// numpy's astype for every value inside the int64 range and never invokes C++ UB.
template <typename Dst, typename Src>
Dst ConvertScalar(Src v) {
  if constexpr (std::is_same_v<Dst, bool>) {
    return v != Src(0);
  } else if constexpr (std::is_integral_v<Dst> && std::is_floating_point_v<Src>) {
    if (std::isnan(v)) return Dst(0);
    const double t = std::trunc(static_cast<double>(v));
    int64_t i;
    if (t >= 9223372036854775807.0) {
      i = std::numeric_limits<int64_t>::max();
    } else if (t <= -9223372036854775808.0) {
      i = std::numeric_limits<int64_t>::min();
    } else {
      i = static_cast<int64_t>(t);
    }
    return static_cast<Dst>(i);  // modular narrowing (well defined since C++20)
  } else {
    return static_cast<Dst>(v);
  }
}

// Converts one stored element to another stored type.
template <typename To, typename From>
To ConvertElem(From v) {
  using Src = typename Elem<From>::Compute;
  using Dst = typename Elem<To>::Compute;
  return Elem<To>::Store(ConvertScalar<Dst, Src>(Elem<From>::Load(v)));
}

}  // namespace kiln
