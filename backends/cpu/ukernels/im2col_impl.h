// The im2col micro-panel packer, written once over the simd.h vectors and instantiated per ISA
// (im2col_<isa>.cc): row segments are copied with masked vector loads (stride 1) or
// deinterleaving loads (stride 2), padding lanes come out as zeros without branches per
// element, and nothing outside an input row is read.
#pragma once

#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {  // NOLINT(build/namespaces): internal linkage per ISA translation unit

inline int ClampLane(int64_t v, int64_t lo, int64_t hi) {
  return static_cast<int>(v < lo ? lo : (v > hi ? hi : v));
}

// Layers with a lane table (p.tap_lanes): every panel row is nr consecutive input floats at
// the tap's offset, read under the tap's lane bits (nr a multiple of N, or below it): a few
// instructions per row, where the row segments below cost about a cycle per float.
template <typename V>
void Im2colPanelLanes(const Im2colParams& p, const float* xg, int64_t p0, int nr, int64_t k0,
                      int64_t kl, float* dst) {
  constexpr int N = V::N;
  const int64_t taps = p.kernel_h * p.kernel_w;
  const uint32_t* lanes = p.tap_lanes + (p0 / nr) * taps;
  int64_t tap = k0 % taps, c = k0 / taps;
  for (int64_t k = 0; k < kl; ++k) {
    const float* src = xg + c * p.channel_stride + p.tap_offsets[tap] + p0;
    const uint32_t bits = lanes[tap];
    float* row = dst + k * nr;
    for (int j = 0; j < nr; j += N) {
      // Lanes past nr have no bits: nothing is read there (8-pixel panels under AVX-512).
      const typename V::T v = V::LoadBits(src + j, bits >> j);
      if (nr - j >= N) {
        V::Store(row + j, v);
      } else {
        V::StorePartial(row + j, v, nr - j);
      }
    }
    if (++tap == taps) {
      tap = 0;
      ++c;
    }
  }
}

template <typename V>
void Im2colPanel(const Im2colParams& p, const float* xg, int64_t p0, int tn, int nr, int64_t k0,
                 int64_t kl, float* dst) {
  constexpr int N = V::N;
  if (p.tap_lanes != nullptr) return Im2colPanelLanes<V>(p, xg, p0, nr, k0, kl, dst);
  // The panel's output pixels as row segments: (oy, ox0, length, first column).
  struct Seg {
    int64_t oy, ox0;
    int len, j0;
  };
  Seg segs[64];  // tn <= 64
  int nseg = 0;
  for (int j = 0; j < tn;) {
    const int64_t pix = p0 + j;
    const int64_t oy = pix / p.out_w, ox0 = pix % p.out_w;
    const int64_t room = p.out_w - ox0;
    const int len = static_cast<int>(room < tn - j ? room : tn - j);
    segs[nseg++] = {oy, ox0, len, j};
    j += len;
  }
  const int64_t in_plane = p.in_h * p.in_w;
  int64_t kx = k0 % p.kernel_w, ky = (k0 / p.kernel_w) % p.kernel_h;
  int64_t c = k0 / (p.kernel_w * p.kernel_h);
  for (int64_t k = 0; k < kl; ++k) {
    float* row = dst + k * nr;
    const float* xc = xg + c * in_plane;
    const int64_t off_x = kx * p.dilation_w - p.pad_left;
    for (int s = 0; s < nseg; ++s) {
      const Seg& sg = segs[s];
      float* out = row + sg.j0;
      const int64_t iy = sg.oy * p.stride_h + ky * p.dilation_h - p.pad_top;
      if (iy < 0 || iy >= p.in_h) {
        for (int j = 0; j < sg.len; j += N) V::StorePartial(out + j, V::Zero(), sg.len - j);
        continue;
      }
      const float* xrow = xc + iy * p.in_w;
      const int64_t ix0 = sg.ox0 * p.stride_w + off_x;  // input column of the segment's start
      if (p.stride_w == 1) {
        // Lane j of chunk jj reads column ix0 + jj + j, valid when inside [0, in_w).
        for (int jj = 0; jj < sg.len; jj += N) {
          const int64_t c0 = ix0 + jj;
          const int n = sg.len - jj < N ? sg.len - jj : N;
          const typename V::T v =
              V::LoadRange(xrow + c0, ClampLane(-c0, 0, N), ClampLane(p.in_w - c0, 0, n));
          V::StorePartial(out + jj, v, n);
        }
      } else if (p.stride_w == 2) {
        for (int jj = 0; jj < sg.len; jj += N) {
          const int64_t c0 = ix0 + 2 * jj;
          const int n = sg.len - jj < N ? sg.len - jj : N;
          typename V::T even, odd;
          V::LoadDeinterleave(xrow + c0, ClampLane(-c0, 0, 2 * N), ClampLane(p.in_w - c0, 0, 2 * n),
                              &even, &odd);
          V::StorePartial(out + jj, even, n);
        }
      } else {
        for (int j = 0; j < sg.len; ++j) {
          const int64_t ix = ix0 + j * p.stride_w;
          out[j] = ix >= 0 && ix < p.in_w ? xrow[ix] : 0.f;
        }
      }
    }
    for (int j = tn; j < nr; ++j) row[j] = 0.f;
    if (++kx == p.kernel_w) {
      kx = 0;
      if (++ky == p.kernel_h) {
        ky = 0;
        ++c;
      }
    }
  }
}

}  // namespace
}  // namespace kiln::cpu
