// ConvStem: the zero-padded input copy, then output rows over the pool.
#include "backends/cpu/kernels/conv_stem.h"

#include <algorithm>
#include <cstring>

namespace kiln::cpu {
namespace {

int64_t RoundUp(int64_t a, int64_t b) { return (a + b - 1) / b * b; }

// Padded row `row` (input row row - pad_top) of channel c into `out`: the input row at
// pad_left, only the padding around it cleared.
void CopyPaddedRow(const float* x, int64_t c, int64_t row, int64_t in_h, int64_t in_w,
                   int64_t pad_top, int64_t pad_left, int64_t pad_w, float* out) {
  const int64_t iy = row - pad_top, right = pad_w - pad_left - in_w;
  if (iy < 0 || iy >= in_h) {
    std::fill(out, out + pad_w, 0.f);
    return;
  }
  std::fill(out, out + pad_left, 0.f);
  std::memcpy(out + pad_left, x + (c * in_h + iy) * in_w,
              static_cast<size_t>(in_w) * sizeof(float));
  std::fill(out + pad_left + in_w, out + pad_left + in_w + right, 0.f);
}

}  // namespace

void CopyZeroPaddedRows(const float* x, int64_t channels, int64_t in_h, int64_t in_w,
                        int64_t pad_top, int64_t pad_left, int64_t pad_w, int64_t row0,
                        int64_t row1, float* xpad) {
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t r = row0; r < row1; ++r) {
      CopyPaddedRow(x, c, r, in_h, in_w, pad_top, pad_left, pad_w,
                    xpad + (c * (row1 - row0) + r - row0) * pad_w);
    }
  }
}

void CopyZeroPadded(const float* x, int64_t channels, int64_t in_h, int64_t in_w, int64_t pad_top,
                    int64_t pad_left, int64_t pad_h, int64_t pad_w, float* xpad, ThreadPool* pool) {
  // Row r of channel c (r = c * pad_h + padded row), over the pool: one thread's copy of a
  // 224 x 224 image was a third of mobilenetv2's stem at two threads.
  auto copy_rows = [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      CopyPaddedRow(x, r / pad_h, r % pad_h, in_h, in_w, pad_top, pad_left, pad_w,
                    xpad + r * pad_w);
    }
  };
  ParallelOrInline(pool, channels * pad_h, 16, copy_rows);
}

bool ConvStem::Applies(const Conv2dGeometry& g, const CpuKernels& kernels) {
  // Measured against ConvGemm over im2col panels (kiln bench --profile, per-op minimum over 3-6
  // alternating rounds, one thread): 7x7 stems to 64 channels 1.21-1.25x (resnet18_rw,
  // googlenet_rw, densenet121_rw), 3x3 stems to 32 channels 1.22-1.39x (efficientnet_b0_rw,
  // mobilenetv2), squeezenet's 3x3 stride-2 stem to 64 channels 1.50x once the kernel
  // prefetched its output lines (before, it lost in the model though it won alone).
  // AVX2 (8 pixels in the lanes, stride 1 only; Zen 3, the two alternating in one process,
  // best of each): super_resolution's 1 -> 64 5x5 on 224x224 1.29x (1.21x at two threads),
  // 3 -> 24 3x3 1.16x; at stride 2 ConvGemm was as fast.
  const bool stride_ok = g.stride_w == 1 || (g.stride_w == 2 && kernels.stem_conv_stride2);
  return kernels.stem_conv != nullptr && g.groups == 1 && g.in_c <= 4 && g.dilation_h == 1 &&
         g.dilation_w == 1 && stride_ok && g.kernel_h <= 7 && g.kernel_w <= 7;
}

ConvStem::ConvStem(const Conv2dGeometry& g, const CpuKernels& kernels) : g_(g), kernels_(&kernels) {
  p_.in_c = g.in_c;
  p_.out_c = g.out_c;
  p_.out_h = g.out_h;
  p_.out_w = g.out_w;
  p_.kernel_h = g.kernel_h;
  p_.kernel_w = g.kernel_w;
  p_.stride_h = g.stride_h;
  p_.stride_w = g.stride_w;
  p_.pad_h = std::max(g.pad_top + g.in_h, (g.out_h - 1) * g.stride_h + g.kernel_h);
  p_.pad_w = std::max(g.pad_left + g.in_w, (RoundUp(g.out_w, 16) - 1) * g.stride_w + g.kernel_w);
}

size_t ConvStem::ScratchBytes() const {
  const int64_t floats = RoundUp(g_.in_c * p_.pad_h * p_.pad_w, 16) + RoundUp(g_.out_c, 16);
  return static_cast<size_t>(floats) * sizeof(float);
}

void ConvStem::Run(const float* x, const float* w16, const float* bias, const ActivationParams& act,
                   float* y, void* scratch, ThreadPool* pool) const {
  StemConvParams p = p_;
  p.act = act;
  auto* xpad = static_cast<float*>(scratch);
  float* bias16 = xpad + RoundUp(g_.in_c * p.pad_h * p.pad_w, 16);
  std::fill(bias16, bias16 + RoundUp(g_.out_c, 16), 0.f);
  if (bias) std::copy(bias, bias + g_.out_c, bias16);
  const bool inline_act = act.kind == Activation::kNone || act.kind == Activation::kRelu ||
                          act.kind == Activation::kClip;
  for (int64_t n = 0; n < g_.batch; ++n) {
    const float* xn = x + n * g_.in_c * g_.in_plane();
    float* yn = y + n * g_.out_c * g_.out_plane();
    CopyZeroPadded(xn, g_.in_c, g_.in_h, g_.in_w, g_.pad_top, g_.pad_left, p.pad_h, p.pad_w, xpad,
                   pool);
    auto rows = [&](int64_t oy0, int64_t oy1) {
      kernels_->stem_conv(p, xpad, w16, bias16, yn, oy0, oy1);
      if (!inline_act) {
        for (int64_t c = 0; c < g_.out_c; ++c) {
          float* r = yn + c * g_.out_plane() + oy0 * g_.out_w;
          kernels_->activate(r, r, (oy1 - oy0) * g_.out_w, act);
        }
      }
    };
    ParallelOrInline(pool, g_.out_h, 1, rows);
  }
}

}  // namespace kiln::cpu
