// Lane masks for a stride-1 "same" window slid over a plane stored as one flat run of vectors
// (the small-plane depthwise and max-pool kernels): tap (ky, kx) of output i reads input
// i + (ky - pad_top) * in_w + kx - pad_left, inside the input where the mask says so. The
// masks depend only on the geometry, so a kernel makes them once per call. Written once over
// the simd.h vectors, included by the per-ISA kernel headers.
#pragma once

#include <cstdint>

#include "backends/cpu/ukernels/simd.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

// P has in_h, in_w, out_w, kernel_h, kernel_w, pad_top, pad_left (in_w == out_w). Fills
// masks[v][t] for vectors v < nvec (lanes past plane = out_h * out_w are off) and offset[t];
// at most kVectors vectors and kTaps taps.
template <typename V, int kVectors, int kTaps, typename P>
void FlatPlaneMasks(const P& p, int64_t plane, int nvec, typename V::MaskT (*masks)[kTaps],
                    int64_t* offset) {
  constexpr int N = V::N;
  const int taps = static_cast<int>(p.kernel_h * p.kernel_w);
  // Output row and column of every lane (past the plane: a row no tap reads), by counting: a
  // division per lane made these tables cost more than a whole 14x14 depthwise layer.
  int lane_y[kVectors * N], lane_x[kVectors * N];
  for (int i = 0, oy = 0, ox = 0; i < nvec * N; ++i) {
    lane_y[i] = i < plane ? oy : -kTaps - 1;
    lane_x[i] = ox;
    if (++ox == p.out_w) ox = 0, ++oy;
  }
  for (int t = 0; t < taps; ++t) {
    // Tap (ky, kx) reads inside the input for output rows [y_lo, y_hi) and columns [x_lo, x_hi).
    const int ky = t / static_cast<int>(p.kernel_w), kx = t % static_cast<int>(p.kernel_w);
    offset[t] = (ky - p.pad_top) * p.in_w + (kx - p.pad_left);
    const int y_lo = static_cast<int>(p.pad_top) - ky, y_hi = y_lo + static_cast<int>(p.in_h);
    const int x_lo = static_cast<int>(p.pad_left) - kx, x_hi = x_lo + static_cast<int>(p.in_w);
    for (int v = 0; v < nvec; ++v) {
      // The valid lanes form runs per output row: build the mask from 0/1 floats.
      alignas(64) float on[N];
      for (int j = 0; j < N; ++j) {
        const int yy = lane_y[v * N + j], xx = lane_x[v * N + j];
        on[j] = yy >= y_lo && yy < y_hi && xx >= x_lo && xx < x_hi ? 1.f : 0.f;
      }
      masks[v][t] = V::MaskFromFloats(on);
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
