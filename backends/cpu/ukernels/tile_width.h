// Micro-kernel tiles with a compile-time pixel count (their accumulators live in registers),
// picked at run time for the pixels a row has left.
#pragma once

#include <cstdint>
#include <type_traits>

namespace kiln::cpu {

// Calls f(std::integral_constant<int, w>{}) with w = n clamped to [1, kMax].
template <int kMax, typename F>
inline void WithTileWidth(int64_t n, const F& f) {
  if constexpr (kMax > 1) {
    if (n < kMax) return WithTileWidth<kMax - 1>(n, f);
  }
  f(std::integral_constant<int, kMax>{});
}

}  // namespace kiln::cpu
