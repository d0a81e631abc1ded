// 8-bit images and a PIL-compatible BILINEAR resize (the models' test data was made with PIL).
#pragma once

#include <cstdint>
#include <vector>

namespace kiln {

// 8-bit interleaved pixels, row-major.
struct Image8 {
  int width = 0, height = 0, channels = 0;
  std::vector<uint8_t> pixels;
};

// PIL's Image.resize(..., Image.BILINEAR) on 8-bit data, bit-exact: a triangle filter whose
// support grows with the downscale factor (antialiased), coefficients in 22-bit fixed point,
// horizontal pass first into an 8-bit intermediate. Sizes must be positive.
Image8 ResizeBilinearPil(const Image8& in, int out_width, int out_height);

}  // namespace kiln
