// NCHW8c convolution driver (conv_nchw8c.h) and the portable micro-kernels.
#include "backends/cpu/kernels/conv_nchw8c.h"

#include <algorithm>

#include "ir/layout.h"
#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_stem.h"

namespace kiln::cpu {
namespace {

constexpr int64_t B = kNCHWcBlock;

// Pixels per unit of work a thread takes (a multiple of the AVX2 kernel's 6-pixel tile).
constexpr int64_t kPointwiseUnit = 48;

bool Unpadded(const Conv2dGeometry& g) {
  return g.pad_top == 0 && g.pad_left == 0 && g.pad_bottom == 0 && g.pad_right == 0;
}

// Output rows per thread when the threads split rows, and the padded input rows they read.
int64_t RowsPerThread(const Conv2dGeometry& g, int threads) {
  return (g.out_h + threads - 1) / threads;
}
int64_t BandRows(const Conv2dGeometry& g, int threads) {
  return (RowsPerThread(g, threads) - 1) * g.stride_h + g.kernel_h;
}

// Whether the threads split a direct layer's Block16O pairs of output blocks (each taking
// every row) rather than its rows: on small planes (13 rows split unevenly) and where each
// thread gets whole groups of two pairs (rows cost each thread every pair's weights:
// squeezenet's 27x27 expansions lost 12 % of their two-thread time to that); densenet121's
// 32-channel 3x3 layers, one pair per thread, ran 1.12x slower so (the 2-pair tiles idle half
// their registers).
bool SplitsPairs(const Conv2dGeometry& g, int threads) {
  const int64_t pairs = (g.out_c / B + 1) / 2;
  return threads > 1 && pairs % threads == 0 &&
         (g.out_h < 8 * threads || pairs % (2 * threads) == 0);
}

// The part of a layer's arguments that computes Block16O pairs [q0, q1) of output blocks
// (weights, bias, output and residual offset to them).
NCHW8cConvArgs PairsOf(const NCHW8cConvArgs& a, const Conv2dGeometry& g, int64_t q0, int64_t q1) {
  NCHW8cConvArgs part = a;
  const int64_t ob0 = 2 * q0, ob1 = std::min(g.out_c / B, 2 * q1), pixels = g.out_plane();
  part.w = a.w + q0 * g.in_c / g.groups * g.kernel_h * g.kernel_w * 16;
  part.bias = a.bias ? a.bias + ob0 * B : nullptr;
  part.y = a.y + ob0 * pixels * B;
  part.residual = a.residual ? a.residual + ob0 * pixels * B : nullptr;
  part.out_c = (ob1 - ob0) * B;
  return part;
}

}  // namespace

NCHW8cConvKind ClassifyNCHW8cConv(const Conv2dGeometry& g, bool has_residual) {
  if (g.out_c % B != 0 || g.in_c == 0 || g.out_c == 0) {
    return NCHW8cConvKind::kNone;
  }
  if (g.dilation_h != 1 || g.dilation_w != 1) return NCHW8cConvKind::kNone;
  if (g.groups == 1 && g.in_c <= 4 && !has_residual && g.kernel_h <= 7 && g.kernel_w <= 7 &&
      g.stride_h == g.stride_w && (g.stride_h == 1 || g.stride_h == 2)) {
    return NCHW8cConvKind::kDirect;
  }
  if (g.in_c % B != 0) return NCHW8cConvKind::kNone;
  if (g.is_pointwise() && g.groups == 1) return NCHW8cConvKind::kPointwise;
  if (g.groups == 1 && g.kernel_h <= 7 && g.kernel_w <= 7 && g.stride_h == g.stride_w &&
      (g.stride_h == 1 || g.stride_h == 2)) {
    return NCHW8cConvKind::kDense;
  }
  const int64_t k = g.kernel_h, half = k / 2;
  const bool dw = g.is_depthwise() && (k == 1 || k == 3 || k == 5) && g.kernel_w == k &&
                  g.stride_h == g.stride_w && (g.stride_h == 1 || g.stride_h == 2) &&
                  g.pad_top <= half && g.pad_left <= half && g.pad_bottom <= half &&
                  g.pad_right <= half;
  if (dw && !has_residual) return NCHW8cConvKind::kDepthwise;
  return NCHW8cConvKind::kNone;
}

size_t NCHW8cConvScratchBytes(NCHW8cConvKind kind, const Conv2dGeometry& g, int threads) {
  if (kind != NCHW8cConvKind::kDirect && kind != NCHW8cConvKind::kDense) return 0;
  if (Unpadded(g)) return 0;
  // The whole padded image, or each thread's band of it.
  const int64_t pw = g.in_w + g.pad_left + g.pad_right, ph = g.in_h + g.pad_top + g.pad_bottom;
  const int64_t whole = g.in_c * ph * pw;  // blocked: in_c / 8 planes of rows of pw x 8
  const int64_t bands = threads > 1 ? threads * g.in_c * BandRows(g, threads) * pw : 0;
  return static_cast<size_t>(std::max(whole, bands)) * sizeof(float);
}

void RunNCHW8cConv(const CpuKernels& k, NCHW8cConvKind kind, const Conv2dGeometry& g,
                   const ActivationParams& act, const float* x, const float* w, const float* bias,
                   const float* residual, float* y, void* scratch, ThreadPool* pool) {
  NCHW8cConvArgs a;
  a.w = w;
  a.bias = bias;
  a.in_c = g.in_c, a.in_h = g.in_h, a.in_w = g.in_w;
  a.out_c = g.out_c, a.out_h = g.out_h, a.out_w = g.out_w;
  a.stride = g.stride_h, a.pad_top = g.pad_top, a.pad_left = g.pad_left;
  a.kernel_h = g.kernel_h, a.kernel_w = g.kernel_w;
  a.act = act;
  const int64_t ph = g.in_h + g.pad_top + g.pad_bottom, pw = g.in_w + g.pad_left + g.pad_right;
  float* padded = static_cast<float*>(scratch);
  const int64_t in_image = g.in_c * g.in_plane(), out_image = g.out_c * g.out_plane();
  const int threads = pool ? pool->num_threads() : 1;
  for (int64_t n = 0; n < g.batch; ++n) {
    a.x = x + n * in_image;
    a.y = y + n * out_image;
    a.residual = residual ? residual + n * out_image : nullptr;
    if (kind == NCHW8cConvKind::kDirect || kind == NCHW8cConvKind::kDense) {
      // The image zero-padded once, so the taps need no bounds checks: a few plain channels
      // (stems), or NCHW8c, whose block rows are rows of in_w * 8 floats.
      // Unpadded layers (squeezenet's stem, 1x1 stride 2) read the input as it is.
      const bool blocked = kind == NCHW8cConvKind::kDense;
      const int64_t cs = blocked ? B : 1, planes = blocked ? g.in_c / B : g.in_c;
      NCHW8cConvArgs d = a;
      d.in_h = ph, d.in_w = pw, d.pad_top = d.pad_left = 0;
      d.x_blocked = blocked;
      const int64_t pairs = (g.out_c / B + 1) / 2;
      if (!Unpadded(g) && threads > 1 && !SplitsPairs(g, threads)) {
        // Each thread pads the input rows its output rows read into its own band of the
        // scratch (the halo rows twice) and runs them: no barrier between copy and layer
        // (densenet121's 28x28 3x3 layers scaled 1.67-1.75x at two threads with one).
        const int64_t per = RowsPerThread(g, threads), band = BandRows(g, threads);
        ParallelOrInline(pool, threads, 1, [&](int64_t t0, int64_t t1) {
          for (int64_t t = t0; t < t1; ++t) {
            const int64_t r0 = t * per, r1 = std::min(g.out_h, r0 + per);
            if (r0 >= r1) continue;
            const int64_t row0 = r0 * g.stride_h, row1 = (r1 - 1) * g.stride_h + g.kernel_h;
            float* mine = padded + t * planes * band * pw * cs;
            CopyZeroPaddedRows(a.x, planes, g.in_h, g.in_w * cs, g.pad_top, g.pad_left * cs,
                               pw * cs, row0, row1, mine);
            NCHW8cConvArgs part = d;
            part.x = mine, part.in_h = row1 - row0;
            part.y = a.y + r0 * g.out_w * B;
            part.residual = a.residual ? a.residual + r0 * g.out_w * B : nullptr;
            k.nchw8c_direct(part, 0, r1 - r0);
          }
        });
        continue;
      }
      if (!Unpadded(g)) {
        // The image zero-padded once (its rows over the pool).
        CopyZeroPadded(a.x, planes, g.in_h, g.in_w * cs, g.pad_top, g.pad_left * cs, ph, pw * cs,
                       padded, pool);
        d.x = padded;
      }
      if (SplitsPairs(g, threads)) {
        ParallelOrInline(pool, pairs, pairs / threads, [&](int64_t q0, int64_t q1) {
          k.nchw8c_direct(PairsOf(d, g, q0, q1), 0, g.out_h);
        });
      } else {
        ParallelOrInline(pool, g.out_h, 1,
                         [&](int64_t r0, int64_t r1) { k.nchw8c_direct(d, r0, r1); });
      }
    } else if (kind == NCHW8cConvKind::kPointwise) {
      const int64_t pixels = g.out_plane();
      const int64_t units = (pixels + kPointwiseUnit - 1) / kPointwiseUnit;
      const int64_t pairs = (g.out_c / B + 1) / 2;
      if (threads > 1 && units < 4 * threads && pairs >= threads) {
        // Small planes (14x14 and less): the threads split the output channels in pairs of
        // blocks (one Block16O block each), every thread reading the whole input.
        ParallelOrInline(pool, pairs, (pairs + threads - 1) / threads, [&](int64_t q0, int64_t q1) {
          k.nchw8c_pointwise(PairsOf(a, g, q0, q1), 0, pixels);
        });
        continue;
      }
      // One contiguous range of pixels per thread: each reads its own input rows once.
      ParallelOrInline(pool, units, (units + threads - 1) / threads, [&](int64_t u0, int64_t u1) {
        k.nchw8c_pointwise(a, u0 * kPointwiseUnit, std::min(pixels, u1 * kPointwiseUnit));
      });
    } else {
      ParallelOrInline(pool, g.out_c / B, 1,
                       [&](int64_t b0, int64_t b1) { k.nchw8c_depthwise(a, b0, b1); });
    }
  }
}

// Portable micro-kernels: the same loop order as the AVX2 ones, a block's 8 lanes as a plain
// loop the compiler may vectorise.
void NCHW8cPointwiseScalar(const NCHW8cConvArgs& a, int64_t p0, int64_t p1) {
  const int64_t plane = a.out_h * a.out_w, in_blocks = a.in_c / B;
  for (int64_t ob = 0; ob < a.out_c / B; ++ob) {
    // Block16O: output block ob is half (ob % 2) of 16-channel block ob / 2, one 16-float row
    // per input channel.
    const float* wb = a.w + (ob / 2) * a.in_c * 16 + (ob % 2) * B;
    float* yb = a.y + ob * plane * B;
    const float* rb = a.residual ? a.residual + ob * plane * B : nullptr;
    for (int64_t p = p0; p < p1; ++p) {
      float acc[B];
      for (int64_t l = 0; l < B; ++l) acc[l] = a.bias ? a.bias[ob * B + l] : 0.f;
      for (int64_t ib = 0; ib < in_blocks; ++ib) {
        const float* xp = a.x + (ib * plane + p) * B;
        for (int64_t j = 0; j < B; ++j) {
          const float xv = xp[j];
          const float* wk = wb + (ib * B + j) * 16;
          for (int64_t l = 0; l < B; ++l) acc[l] += wk[l] * xv;
        }
      }
      for (int64_t l = 0; l < B; ++l) {
        float v = acc[l];
        if (rb) v += rb[p * B + l];
        yb[p * B + l] = ApplyActivation(a.act, v);
      }
    }
  }
}

void NCHW8cDirectScalar(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1) {
  const int64_t plane = a.out_h * a.out_w, taps = a.kernel_h * a.kernel_w;
  // Channel c's value at padded row iy, column ix: plain planes, or lane c % 8 of block c / 8.
  auto at = [&](int64_t c, int64_t iy, int64_t ix) {
    return a.x_blocked ? a.x[(((c / B) * a.in_h + iy) * a.in_w + ix) * B + c % B]
                       : a.x[(c * a.in_h + iy) * a.in_w + ix];
  };
  for (int64_t ob = 0; ob < a.out_c / B; ++ob) {
    // Block16O [O/16][C][kh][kw][16]: block ob is half (ob % 2) of 16-channel block ob / 2.
    const float* wb = a.w + (ob / 2) * a.in_c * taps * 16 + (ob % 2) * B;
    for (int64_t oy = oy0; oy < oy1; ++oy) {
      for (int64_t ox = 0; ox < a.out_w; ++ox) {
        float acc[B];
        for (int64_t l = 0; l < B; ++l) acc[l] = a.bias ? a.bias[ob * B + l] : 0.f;
        for (int64_t c = 0; c < a.in_c; ++c) {
          for (int64_t ky = 0; ky < a.kernel_h; ++ky) {
            for (int64_t kx = 0; kx < a.kernel_w; ++kx) {
              const float xv = at(c, oy * a.stride + ky, ox * a.stride + kx);
              const float* wk = wb + ((c * a.kernel_h + ky) * a.kernel_w + kx) * 16;
              for (int64_t l = 0; l < B; ++l) acc[l] += wk[l] * xv;
            }
          }
        }
        const int64_t at_y = (ob * plane + oy * a.out_w + ox) * B;
        for (int64_t l = 0; l < B; ++l) {
          const float v = acc[l] + (a.residual ? a.residual[at_y + l] : 0.f);
          a.y[at_y + l] = ApplyActivation(a.act, v);
        }
      }
    }
  }
}

void NCHW8cDepthwiseScalar(const NCHW8cConvArgs& a, int64_t b0, int64_t b1) {
  for (int64_t b = b0; b < b1; ++b) {
    const float* xb = a.x + b * a.in_h * a.in_w * B;
    float* yb = a.y + b * a.out_h * a.out_w * B;
    const int64_t K = a.kernel_h;
    const float* wb = a.w + (b / 2) * K * K * 16 + (b % 2) * B;  // Block16O [C/16][K][K][16]
    for (int64_t oy = 0; oy < a.out_h; ++oy) {
      for (int64_t ox = 0; ox < a.out_w; ++ox) {
        float acc[B];
        for (int64_t l = 0; l < B; ++l) acc[l] = a.bias ? a.bias[b * B + l] : 0.f;
        for (int64_t ky = 0; ky < K; ++ky) {
          const int64_t iy = oy * a.stride - a.pad_top + ky;
          if (iy < 0 || iy >= a.in_h) continue;
          for (int64_t kx = 0; kx < K; ++kx) {
            const int64_t ix = ox * a.stride - a.pad_left + kx;
            if (ix < 0 || ix >= a.in_w) continue;
            const float* xp = xb + (iy * a.in_w + ix) * B;
            const float* wk = wb + (ky * K + kx) * 16;
            for (int64_t l = 0; l < B; ++l) acc[l] += wk[l] * xp[l];
          }
        }
        float* yp = yb + (oy * a.out_w + ox) * B;
        for (int64_t l = 0; l < B; ++l) yp[l] = ApplyActivation(a.act, acc[l]);
      }
    }
  }
}

}  // namespace kiln::cpu
