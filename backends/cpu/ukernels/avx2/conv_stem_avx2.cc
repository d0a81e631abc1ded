// AVX2 direct convolution for layers with few input channels (StemConvFn): 8 output pixels of
// a row in the lanes, one accumulator per output channel.
//
// Through im2col a stem packs K = 27..147 rows for every tile of pixels and multiplies them by
// only 4-8 panels of weights (conv_stem_avx512.cc). Here each tap is one vector of 8 input
// pixels and one broadcast weight per channel: 12 channels per pass (12 accumulators, the
// pixel vector and a broadcast fill the 16 registers), stored straight to the planes. Stride 1
// only (ConvStem::Applies): each tap's 8 pixels are one contiguous load. At stride 2 the
// pixels would need a deinterleave per tap or a split copy per row, and ConvGemm's packing
// from phase planes was as fast (Zen 3, one thread: 3 -> 64 7x7 0.97x, 3 -> 32 3x3 0.99x).
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu/ukernels/simd.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
#if defined(__AVX2__) && defined(__FMA__)
namespace {

constexpr int kPixels = 8;

struct StemRowView {
  const float* base;   // tap offsets are from here
  const int64_t* off;  // per tap
  int64_t k;
};

// Channels [J0, J0 + NJ) of the block pair at w (Block16O, `wstride` floats a block) for output
// pixels [ox0, ox0 + 8) of one row; relu / clip when asked.
template <int J0, int NJ>
__attribute__((always_inline)) inline void StemChannels(const StemRowView& v, int64_t ox0,
                                                        const float* w, int64_t wstride,
                                                        const float* bias, int64_t channels,
                                                        float* y, int64_t out_plane, int n,
                                                        __m256 lo, __m256 hi, bool relu,
                                                        bool clip) {
  __m256 acc[NJ];
#pragma GCC unroll 12
  for (int j = 0; j < NJ; ++j) acc[j] = _mm256_set1_ps(bias[J0 + j]);
  const float* w0 = w + (J0 / 16) * wstride + J0 % 16;
  const float* w1 = w0 + wstride - 16;  // channel 16 + i of the pair: w1 + i (J0 % 16 folded)
  const float* src = v.base + ox0;
  for (int64_t t = 0; t < v.k; ++t) {
    const __m256 xv = _mm256_loadu_ps(src + v.off[t]);
#pragma GCC unroll 12
    for (int j = 0; j < NJ; ++j) {
      constexpr int kFirst = J0 % 16;
      const float* wc = kFirst + j < 16 ? w0 + j : w1 + j;
      acc[j] = _mm256_fmadd_ps(xv, _mm256_broadcast_ss(wc + t * 16), acc[j]);
    }
  }
#pragma GCC unroll 12
  for (int j = 0; j < NJ; ++j) {
    if (J0 + j >= channels) break;
    __m256 r = acc[j];
    if (relu || clip) r = _mm256_max_ps(r, lo);
    if (clip) r = _mm256_min_ps(r, hi);
    float* dst = y + (J0 + j) * out_plane;
    Vec256::StorePartial(dst, r, n);
  }
}

void StemRows(const StemConvParams& p, const float* xpad, const float* w16, const float* bias,
              float* y, int64_t oy0, int64_t oy1) {
  const int64_t out_plane = p.out_h * p.out_w, taps = p.kernel_h * p.kernel_w;
  const int64_t k = p.in_c * taps;
  int64_t off[kStemMaxTaps];
  for (int64_t t = 0; t < k; ++t) {
    const int64_t c = t / taps, ky = t / p.kernel_w % p.kernel_h, kx = t % p.kernel_w;
    off[t] = (c * p.pad_h + ky) * p.pad_w + kx;
  }
  const bool relu = p.act.kind == Activation::kRelu, clip = p.act.kind == Activation::kClip;
  const __m256 lo = _mm256_set1_ps(relu ? 0.f : p.act.alpha), hi = _mm256_set1_ps(p.act.beta);
  for (int64_t oy = oy0; oy < oy1; ++oy) {
    const StemRowView v{xpad + oy * p.stride_h * p.pad_w, off, k};
    float* yrow = y + oy * p.out_w;
    // Block pairs outermost (32 planes written at a time, as the AVX-512 kernel).
    for (int64_t c0 = 0; c0 < p.out_c; c0 += 32) {
      const float* w = w16 + c0 * k;
      const float* b = bias + c0;
      const int64_t channels = p.out_c - c0;
      float* yc = yrow + c0 * out_plane;
      for (int64_t ox0 = 0; ox0 < p.out_w; ox0 += kPixels) {
        const int n = static_cast<int>(std::min<int64_t>(kPixels, p.out_w - ox0));
        float* yo = yc + ox0;
        if (channels > 16) {  // both blocks: 12 + 12 + 8 channels
          StemChannels<0, 12>(v, ox0, w, k * 16, b, channels, yo, out_plane, n, lo, hi, relu, clip);
          StemChannels<12, 12>(v, ox0, w, k * 16, b, channels, yo, out_plane, n, lo, hi, relu,
                               clip);
          if (channels > 24) {
            StemChannels<24, 8>(v, ox0, w, k * 16, b, channels, yo, out_plane, n, lo, hi, relu,
                                clip);
          }
        } else {  // the last block alone: 8 + 8
          StemChannels<0, 8>(v, ox0, w, k * 16, b, channels, yo, out_plane, n, lo, hi, relu, clip);
          if (channels > 8) {
            StemChannels<8, 8>(v, ox0, w, k * 16, b, channels, yo, out_plane, n, lo, hi, relu,
                               clip);
          }
        }
      }
    }
  }
}

}  // namespace

void StemConvAvx2(const StemConvParams& p, const float* xpad, const float* w16, const float* bias16,
                  float* y, int64_t oy0, int64_t oy1) {
  StemRows(p, xpad, w16, bias16, y, oy0, oy1);
}
#endif
}  // namespace kiln::cpu
