// ConvDepthwise: the plane kernel's channel ranges, or 16-channel blocks in the lanes.
#include "backends/cpu/kernels/conv_depthwise.h"

#include <algorithm>

namespace kiln::cpu {
namespace {

// The lanes kernel's tile (padded input rows of a band, 16 floats per pixel) may pass
// kDwLanesTileBytes by this much where one band of a single row is that wide already.
constexpr int64_t kMaxLanesTileBytes = 2 * kDwLanesTileBytes;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

ConvDepthwise::ConvDepthwise(const Conv2dGeometry& g, const CpuKernels& kernels, int threads,
                             bool block16o)
    : g_(g), kernels_(&kernels), block16o_(block16o) {
  p_.in_h = g.in_h;
  p_.in_w = g.in_w;
  p_.out_h = g.out_h;
  p_.out_w = g.out_w;
  p_.kernel_h = g.kernel_h;
  p_.kernel_w = g.kernel_w;
  p_.stride_h = g.stride_h;
  p_.stride_w = g.stride_w;
  p_.pad_top = g.pad_top;
  p_.pad_left = g.pad_left;
  // 1x1 windows (a BatchNormalization the compiler rewrote) are one pass in the plane kernel.
  // Stride 2 transposes four input pixels per output pixel: on inputs wider than 32 columns
  // that costs what the lanes save (layer alone, alternating with the plane kernel, best of
  // ~1000 runs, one thread: 144 x 56 -> 28 1.04x, 96 x 112 -> 56 0.95x, where 192 x 28 -> 14
  // is 1.41x, 576 x 14 -> 7 2.9x and the stride-1 layers 1.06-1.9x, 5x5 2.2-2.9x).
  // AVX2 (two 8-lane halves; Zen 3, one thread, alternating): stride 1 1.08x on 32 x 112x112
  // to 2.0-3.1x on 14x14 (5x5: 672 x 14x14 3.1x); stride 2 wins on inputs up to 56 columns
  // (144 x 56 -> 28 1.20x, 240 x 56 5x5 1.82x, 672 x 28 2.3x) and loses on 112 (0.98x). Planes
  // a multiple of 4 KiB apart lose there (32x32 0.89x, 64x64 0.66-0.74x): the 8 or 16 planes
  // read and written at once fall into the same L1 sets. The table holds both limits.
  const bool aliased = kernels.dwconv_lanes_avoid_4k_planes && g.in_plane() * 4 % 4096 == 0;
  lanes_ = kernels.dwconv_lanes != nullptr && g.kernel_size() > 1 &&
           g.kernel_size() <= kDwLanesMaxTaps &&
           (g.stride_w == 1 || g.in_w <= kernels.dwconv_lanes_stride2_max_w) && !aliased &&
           DwLanesScratchFloats(p_) * 4 <= kMaxLanesTileBytes;
  if (lanes_) {
    const int64_t items = g.batch * CeilDiv(g.out_c, 16);
    shares_ = static_cast<int>(std::clamp<int64_t>(threads, 1, items));
    tile_floats_ = CeilDiv(DwLanesScratchFloats(p_), 16) * 16;
  }
}

size_t ConvDepthwise::ScratchBytes() const {
  return lanes_ ? static_cast<size_t>(tile_floats_ * shares_) * sizeof(float) : 0;
}

void ConvDepthwise::Run(const float* x, const float* weights, const float* bias,
                        const float* residual, const ActivationParams& act, float* y, void* scratch,
                        ThreadPool* pool) const {
  DwConvParams p = p_;
  p.act = act;
  if (lanes_) {
    RunLanes(p, x, weights, bias, residual, y, static_cast<float*>(scratch), pool);
  } else {
    RunPlanes(p, x, weights, bias, residual, y, pool);
  }
}

void ConvDepthwise::RunLanes(const DwConvParams& p, const float* x, const float* weights,
                             const float* bias, const float* residual, float* y, float* scratch,
                             ThreadPool* pool) const {
  const int64_t channels = g_.out_c, in_plane = g_.in_plane(), out_plane = g_.out_plane();
  const int64_t taps = g_.kernel_size(), blocks = CeilDiv(channels, 16);
  const int64_t items = g_.batch * blocks;
  auto blocks_fn = [&](int slot, int64_t i0, int64_t i1) {
    alignas(64) float w16[kDwLanesMaxTaps * 16];
    alignas(64) float b16[16];
    float* tile = scratch + slot * tile_floats_;
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t n = i / blocks, c0 = i % blocks * 16;
      const int lanes = static_cast<int>(std::min<int64_t>(16, channels - c0));
      // Block16O blocks are [tap][16] already (zero past the last channel); [c][tap]
      // weights are gathered into one.
      const float* w = weights + c0 * taps;
      if (!block16o_) {
        std::fill(w16, w16 + taps * 16, 0.f);
        for (int l = 0; l < lanes; ++l) {
          for (int64_t t = 0; t < taps; ++t) w16[t * 16 + l] = weights[(c0 + l) * taps + t];
        }
        w = w16;
      }
      std::fill(b16, b16 + 16, 0.f);
      if (bias) std::copy(bias + c0, bias + c0 + lanes, b16);
      const int64_t plane0 = n * channels + c0;
      kernels_->dwconv_lanes(p, x + plane0 * in_plane, w, b16,
                             residual ? residual + plane0 * out_plane : nullptr,
                             y + plane0 * out_plane, lanes, tile);
    }
  };
  // One block per claim: each share (a tile each) takes blocks until none are left, so a
  // thread on a faster core does more of them. mobilenetv2 at two threads, the two splits
  // alternating in one process: 1.015-1.02x; efficientnet_b0_rw 1.00-1.04x (Zen 3).
  ClaimRanges(shares_ > 1 ? pool : nullptr, shares_, items, 1, blocks_fn);
}

void ConvDepthwise::RunPlanes(const DwConvParams& p, const float* x, const float* weights,
                              const float* bias, const float* residual, float* y,
                              ThreadPool* pool) const {
  const int64_t channels = g_.out_c, in_plane = g_.in_plane(), out_plane = g_.out_plane();
  const int64_t taps = g_.kernel_size();
  const DwConvFn fn = kernels_->dwconv;
  // Shares of whole channel ranges per image: the kernel sets up its per-layer tables (the
  // flat small-plane path's lane masks) once per call, and shares write disjoint output planes.
  // Block16O weights are gathered into plain [c][taps] rows for as many channels as the stack
  // buffer holds, so that set-up is not repeated every 16 channels.
  constexpr int64_t kUnpackFloats = 4096;  // 16 KiB: >= 83 channels of a 7x7 window
  auto body = [&](int64_t b, int64_t e) {
    float unpacked[kUnpackFloats];
    for (int64_t i = b; i < e;) {
      const int64_t c = i % channels;
      int64_t count = std::min(e - i, channels - c);
      const float* w = weights + c * taps;
      if (block16o_) {
        // Block (ch / 16) holds tap t of channel ch at (ch / 16 * taps + t) * 16 + ch % 16.
        count = std::min(count, kUnpackFloats / taps);
        for (int64_t j = 0; j < count; ++j) {
          const int64_t ch = c + j;
          const float* block = weights + (ch / 16) * taps * 16 + ch % 16;
          for (int64_t t = 0; t < taps; ++t) unpacked[j * taps + t] = block[t * 16];
        }
        w = unpacked;
      }
      fn(p, x + i * in_plane, w, bias ? bias + c : nullptr,
         residual ? residual + i * out_plane : nullptr, y + i * out_plane, count);
      i += count;
    }
  };
  const int64_t planes = g_.batch * channels;
  // One contiguous range of planes per thread: every plane costs the same, and each call sets
  // up its per-layer tables again (the flat path's lane masks take about as long as a few
  // 14x14 planes), so finer shares only repeat that set-up.
  const int64_t threads = pool ? pool->num_threads() : 1;
  const int64_t grain = (planes + threads - 1) / threads;
  if (pool) {
    pool->ParallelFor(planes, body, grain);
  } else {
    body(0, planes);
  }
}

}  // namespace kiln::cpu
