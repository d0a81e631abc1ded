// AVX-512 max/average and global pooling.
#include "backends/cpu/ukernels/pool_impl.h"

namespace kiln::cpu {
#if defined(__AVX512F__)
void PoolAvx512(const PoolParams& p, const float* x, float* y, int64_t planes) {
  Pool<Vec512>(p, x, y, planes);
}

namespace {

// Two output pixels' 8 channels of a stride-1 NCHW8c max pool in a zmm: window column kx of
// pixels ox and ox + 1 is the 16 contiguous floats at input column ox + kx. Max keeps the
// running value when a tap is NaN (as Vec512::Max: the reference's v > best).
template <int KW>
inline __m512 PairColumnsMax(const float* row, int kw_runtime, __m512 acc) {
  constexpr int64_t kB = 8;
  const int kw = KW ? KW : kw_runtime;
  for (int kx = 0; kx < kw; ++kx) acc = _mm512_max_ps(_mm512_loadu_ps(row + kx * kB), acc);
  return acc;
}

template <int KW>
void MaxPoolNCHW8cPairs(const PoolParams& p, const float* x, float* y, int64_t planes) {
  constexpr int64_t kB = 8;
  const int kh = static_cast<int>(p.kernel_h), kw = static_cast<int>(p.kernel_w);
  const int64_t in_plane = p.in_h * p.in_w * kB, out_plane = p.out_h * p.out_w * kB;
  // Output columns whose window lies inside the row.
  const int64_t ox_lo = p.pad_left;
  const int64_t ox_hi = p.in_w - kw + p.pad_left;
  const __m512 fill = _mm512_set1_ps(-FLT_MAX);
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * in_plane;
    float* yc = y + c * out_plane;
    for (int64_t oy = 0; oy < p.out_h; ++oy) {
      const PoolRows w = RowsOf(p, oy, kh);
      float* yr = yc + oy * p.out_w * kB;
      auto clipped = [&](int64_t ox) {
        ClippedPoolPixelNCHW8c<Vec256, true>(p, kw, xc, w, ox, yr + ox * kB);
      };
      int64_t ox = 0;
      for (; ox < std::min(ox_lo, p.out_w); ++ox) clipped(ox);
      for (; ox + 1 <= ox_hi && ox + 1 < p.out_w; ox += 2) {
        __m512 acc = fill;
        const float* win = xc + (w.iy0 * p.in_w + ox - p.pad_left) * kB;
        for (int ky = w.ky0; ky < w.ky1; ++ky) {
          acc = PairColumnsMax<KW>(win + ky * p.in_w * kB, kw, acc);
        }
        _mm512_storeu_ps(yr + ox * kB, acc);
      }
      for (; ox < p.out_w; ++ox) clipped(ox);
    }
  }
}

}  // namespace

// Stride-1 max pools two pixels per zmm (googlenet_rw's 3x3 "same" pools 1.2x); the others
// as the AVX2 flavour (stride 2 through lane shuffles ran squeezenet's pools 1.15x slower).
void PoolNCHW8cAvx512(const PoolParams& p, const float* x, float* y, int64_t planes) {
  if (p.is_max && p.stride_w == 1) {
    p.kernel_w == 3 ? MaxPoolNCHW8cPairs<3>(p, x, y, planes)
                    : MaxPoolNCHW8cPairs<0>(p, x, y, planes);
  } else {
    PoolNCHW8c<Vec256>(p, x, y, planes);
  }
}

void GlobalPoolAvx512(const float* x, float* y, int64_t planes, int64_t size, bool is_max) {
  GlobalPool<Vec512>(x, y, planes, size, is_max);
}
#endif
}  // namespace kiln::cpu
