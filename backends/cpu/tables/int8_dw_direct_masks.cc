// The load masks of the direct int8 depthwise kernel (QDwDirectParams): which bytes of each
// unaligned load lie inside the input, made once per layer at session creation.
#include <algorithm>

#include "backends/cpu/ukernels/int8_ukernels.h"

namespace kiln::cpu {
namespace {

// The masks' layout: stride 1 per 64-output step of the flat plane, window row and phase;
// stride 2 per 32-column block and phase.
int64_t FlatSteps(const QDwDirectParams& p) { return (p.out_h * p.out_w + 63) / 64; }
int64_t ColumnBlocks(const QDwDirectParams& p) { return (p.out_w + 31) / 32; }

}  // namespace

int64_t QDwDirectMaskCount(const QDwDirectParams& p) {
  return p.stride_w == 1 ? FlatSteps(p) * p.kernel_h * 4 : ColumnBlocks(p) * 2;
}

void QDwDirectMasks(const QDwDirectParams& p, int64_t kernel_w, uint64_t* masks) {
  // Lane j's byte k of phase r's load reads window column k of output `ox` (below); a bit is
  // set where that column is inside the window and the byte inside the input.
  const auto quad_bits = [&](int64_t lane, int64_t ix0, bool valid) {
    uint64_t bits = 0;
    for (int64_t k = 0; k < std::min<int64_t>(kernel_w, 4); ++k) {
      const int64_t ix = ix0 + k;
      if (valid && ix >= 0 && ix < p.in_w) bits |= uint64_t{1} << (4 * lane + k);
    }
    return bits;
  };
  if (p.stride_w == 1) {
    const int64_t plane = p.out_h * p.out_w;
    for (int64_t s = 0; s < FlatSteps(p); ++s) {
      for (int64_t ky = 0; ky < p.kernel_h; ++ky) {
        for (int64_t r = 0; r < 4; ++r) {
          uint64_t m = 0;
          for (int64_t j = 0; j < 16; ++j) {
            const int64_t q = 64 * s + 4 * j + r;
            const int64_t iy = q / p.out_w + ky - p.pad_top;
            m |= quad_bits(j, q % p.out_w - p.pad_left, q < plane && iy >= 0 && iy < p.in_h);
          }
          masks[(s * p.kernel_h + ky) * 4 + r] = m;
        }
      }
    }
    return;
  }
  for (int64_t cb = 0; cb < ColumnBlocks(p); ++cb) {
    for (int64_t r = 0; r < 2; ++r) {
      uint64_t m = 0;
      for (int64_t j = 0; j < 16; ++j) {
        const int64_t ox = 32 * cb + r + 2 * j;
        m |= quad_bits(j, ox * 2 - p.pad_left, ox < p.out_w);
      }
      masks[cb * 2 + r] = m;
    }
  }
}

}  // namespace kiln::cpu
