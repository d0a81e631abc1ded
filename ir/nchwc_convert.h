// Plain [N, C, H, W] <-> NCHW8c ([N][ceil(C/8)][H][W][8], ir/layout.h) for any element type:
// what PackLayout / UnpackLayout, Reorder and the reference kernels' layout adapter use.
// Padding channels are written as zeros.
#pragma once

#include <cstdint>
#include <cstring>

#include "ir/layout.h"

namespace kiln {

template <typename T>
void PlainToNCHW8c(const T* src, T* dst, int64_t n, int64_t c, int64_t plane) {
  constexpr int64_t B = kNCHWcBlock;
  const int64_t blocks = (c + B - 1) / B;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t b = 0; b < blocks; ++b) {
      T* out = dst + (i * blocks + b) * plane * B;
      const int64_t lanes = c - b * B < B ? c - b * B : B;
      if (lanes < B) std::memset(static_cast<void*>(out), 0, sizeof(T) * plane * B);
      for (int64_t l = 0; l < lanes; ++l) {
        const T* in = src + (i * c + b * B + l) * plane;
        for (int64_t p = 0; p < plane; ++p) out[p * B + l] = in[p];
      }
    }
  }
}

template <typename T>
void NCHW8cToPlain(const T* src, T* dst, int64_t n, int64_t c, int64_t plane) {
  constexpr int64_t B = kNCHWcBlock;
  const int64_t blocks = (c + B - 1) / B;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t b = 0; b < blocks; ++b) {
      const T* in = src + (i * blocks + b) * plane * B;
      const int64_t lanes = c - b * B < B ? c - b * B : B;
      for (int64_t l = 0; l < lanes; ++l) {
        T* out = dst + (i * c + b * B + l) * plane;
        for (int64_t p = 0; p < plane; ++p) out[p] = in[p * B + l];
      }
    }
  }
}

// The same for an element of `elem` bytes (1, 2, 4 or 8); false for other sizes.
inline bool ConvertNCHW8c(const void* src, void* dst, size_t elem, const Shape& shape,
                          bool to_blocked) {
  if (shape.size() != 4) return false;
  const int64_t n = shape[0], c = shape[1], plane = shape[2] * shape[3];
  auto run = [&](auto tag) {
    using T = decltype(tag);
    if (to_blocked) {
      PlainToNCHW8c(static_cast<const T*>(src), static_cast<T*>(dst), n, c, plane);
    } else {
      NCHW8cToPlain(static_cast<const T*>(src), static_cast<T*>(dst), n, c, plane);
    }
    return true;
  };
  switch (elem) {
    case 1:
      return run(uint8_t{});
    case 2:
      return run(uint16_t{});
    case 4:
      return run(uint32_t{});
    case 8:
      return run(uint64_t{});
  }
  return false;
}

}  // namespace kiln
