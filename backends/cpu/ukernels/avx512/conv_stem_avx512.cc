// AVX-512 direct convolution for layers with few input channels (stems: 3 -> 32 / 64 with 3x3
// or 7x7 windows), output channels in the lanes (StemConvFn).
//
// Through im2col such a layer packs K = 27..147 rows for every tile of pixels and multiplies
// them by only 4-8 panels of weights: the packing costs about as much as the products. Here
// each tap broadcasts one input value per output pixel and multiplies it by the 16-channel
// weight vectors of its Block16O blocks: 8 pixels x 2 blocks of accumulators, 2 weight loads
// and 8 broadcasts per 16 FMAs, straight from a zero-padded copy of the input. 16 pixels at a
// time are transposed back to the planes with bias and relu / clip.
#include <immintrin.h>

#include <algorithm>

#include "backends/cpu/ukernels/avx512/transpose_avx512.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
namespace {

constexpr int kPixels = 8;  // per FMA group: 8 x NB accumulators

// Output pixels [ox0, ox0 + 8) (pixel j's taps at src + j * SW + off[t]), channel blocks
// b0 .. b0 + NB, into out[pixel][32]. One flat loop over the taps, as GemmTile's over k, so
// the 8 x NB accumulators stay in registers.
template <int NB, int SW>
inline void Group(int64_t k, const int64_t* off, const float* src, const float* w, int64_t wstride,
                  const float* bias, float* out) {
  __m512 acc[kPixels][NB];
#pragma GCC unroll 2
  for (int b = 0; b < NB; ++b) {
    const __m512 bv = _mm512_loadu_ps(bias + b * 16);
#pragma GCC unroll 8
    for (int j = 0; j < kPixels; ++j) acc[j][b] = bv;
  }
  for (int64_t t = 0; t < k; ++t) {
    const float* x = src + off[t];
    __m512 wv[NB];
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b) wv[b] = _mm512_loadu_ps(w + b * wstride + t * 16);
#pragma GCC unroll 8
    for (int j = 0; j < kPixels; ++j) {
      const __m512 xv = _mm512_set1_ps(x[j * SW]);
#pragma GCC unroll 2
      for (int b = 0; b < NB; ++b) acc[j][b] = _mm512_fmadd_ps(xv, wv[b], acc[j][b]);
    }
  }
#pragma GCC unroll 8
  for (int j = 0; j < kPixels; ++j) {
#pragma GCC unroll 2
    for (int b = 0; b < NB; ++b) _mm512_store_ps(out + j * 32 + b * 16, acc[j][b]);
  }
}

template <int SW>
void StemRows(const StemConvParams& p, const float* xpad, const float* w16, const float* bias,
              float* y, int64_t oy0, int64_t oy1) {
  const int64_t blocks = (p.out_c + 15) / 16, out_plane = p.out_h * p.out_w;
  const int64_t k = p.in_c * p.kernel_h * p.kernel_w;
  // Tap t = (c, ky, kx) reads the padded copy at this offset from the pixel's first tap.
  int64_t off[kStemMaxTaps];
  for (int64_t t = 0; t < k; ++t) {
    const int64_t c = t / (p.kernel_h * p.kernel_w), ky = t / p.kernel_w % p.kernel_h;
    off[t] = (c * p.pad_h + ky) * p.pad_w + t % p.kernel_w;
  }
  const bool relu = p.act.kind == Activation::kRelu, clip = p.act.kind == Activation::kClip;
  const __m512 lo = _mm512_set1_ps(relu ? 0.f : p.act.alpha), hi = _mm512_set1_ps(p.act.beta);
  alignas(64) float out[16 * 32];
  // Block pairs outermost: each pass writes 32 planes (64 at once ran squeezenet's stem at
  // two thirds the speed), the padded input (a few hundred KiB) is read again from L2.
  for (int64_t b0 = 0; b0 < blocks; b0 += 2) {
    const int nb = blocks - b0 >= 2 ? 2 : 1;
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      const float* row = xpad + oy * p.stride_h * p.pad_w;
      for (int64_t ox0 = 0; ox0 < p.out_w; ox0 += 16) {
        const int64_t n = std::min<int64_t>(16, p.out_w - ox0);
        const __mmask16 m = n >= 16 ? 0xffff : static_cast<__mmask16>((1u << n) - 1u);
        const float* w = w16 + b0 * k * 16;
        // Pixels past the row's end read the padded copy's spare columns (not stored).
        for (int g = 0; g < 16; g += kPixels) {
          const float* src = row + (ox0 + g) * SW;
          if (nb == 2) {
            Group<2, SW>(k, off, src, w, k * 16, bias + b0 * 16, out + g * 32);
          } else {
            Group<1, SW>(k, off, src, w, k * 16, bias + b0 * 16, out + g * 32);
          }
        }
        for (int b = 0; b < nb; ++b) {
          __m512 r[16];
#pragma GCC unroll 16
          for (int j = 0; j < 16; ++j) r[j] = _mm512_load_ps(out + j * 32 + b * 16);
          Transpose16x16(r);
          const int64_t c0 = (b0 + b) * 16;
          const int lanes = static_cast<int>(std::min<int64_t>(16, p.out_c - c0));
          float* yc = y + c0 * out_plane + oy * p.out_w + ox0;
#pragma GCC unroll 16
          for (int c = 0; c < 16; ++c) {
            if (c >= lanes) break;
            // The line this plane's store reaches two groups on (groups step one line): the
            // stores go to 16-32 planes at once, and a cold output otherwise stalls each on its
            // read for ownership (squeezenet's 64-channel stem ran 3.7x slower cold than warm).
            __builtin_prefetch(yc + c * out_plane + 32, 1);
            __m512 v = r[c];
            if (relu || clip) v = _mm512_max_ps(v, lo);
            if (clip) v = _mm512_min_ps(v, hi);
            _mm512_mask_storeu_ps(yc + c * out_plane, m, v);
          }
        }
      }
    }
  }
}

}  // namespace

void StemConvAvx512(const StemConvParams& p, const float* xpad, const float* w16,
                    const float* bias16, float* y, int64_t oy0, int64_t oy1) {
  if (p.stride_w == 2) {
    StemRows<2>(p, xpad, w16, bias16, y, oy0, oy1);
  } else {
    StemRows<1>(p, xpad, w16, bias16, y, oy0, oy1);
  }
}
#endif
}  // namespace kiln::cpu
