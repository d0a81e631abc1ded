// ConvWinograd: tile blocking and the three threaded stages (ISA-independent).
#include "backends/cpu/kernels/conv_winograd.h"

#include <algorithm>

#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {

constexpr int kTile = 4, kAlpha = 6, kE = kAlpha * kAlpha;
// V and M of one block take about this much; both stay in L2/L3 between the stages.
constexpr int64_t kBlockBytes = 1024 * 1024;
constexpr int64_t kMaxBlockBytes = 2560 * 1024;
// The same for one thread's block when the threads take whole blocks (ConvWinograd::shares_):
// in its core's L2 (1 MiB and more), next to the weights streaming past.
constexpr int64_t kShareBlockBytes = 768 * 1024;
constexpr int64_t kMicroPanelBytes = 16 * 1024;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

bool WinogradApplies(const Conv2dGeometry& g) {
  return g.kernel_h == 3 && g.kernel_w == 3 && g.stride_h == 1 && g.stride_w == 1 &&
         g.dilation_h == 1 && g.dilation_w == 1 && g.groups == 1;
}

ConvWinograd::ConvWinograd(const Conv2dGeometry& g, const CpuKernels& kernels, bool block16,
                           int threads)
    : g_(g), kernels_(&kernels), block16_(block16) {
  p_.in_h = g.in_h;
  p_.in_w = g.in_w;
  p_.out_h = g.out_h;
  p_.out_w = g.out_w;
  p_.pad_top = g.pad_top;
  p_.pad_left = g.pad_left;
  p_.tiles_w = CeilDiv(g.out_w, kTile);
  tiles_h_ = CeilDiv(g.out_h, kTile);
  const int64_t per_tile = kE * (g.in_c + g.out_c) * 4;
  // Every block streams all the weights (36 x in_c x out_c floats, 4x a direct layer's,
  // in rows 36 lines apart that no hardware prefetcher follows): where they outweigh a block,
  // blocks may grow to their size (up to 2.5 MiB, V and M then partly in L3). resnet18_rw's
  // 128-channel 28x28 layers ran in two blocks, each reading 2.3 MiB of weights from memory:
  // in one, 1.17-1.21x (one and two threads), googlenet_rw's 96 -> 128 28x28 layer 1.21x.
  const int64_t weight_bytes = kE * g.in_c * g.out_c * 4;
  const int64_t block_bytes = std::max(kBlockBytes, std::min(weight_bytes, kMaxBlockBytes));
  rows_per_block_ = std::clamp<int64_t>(block_bytes / (per_tile * p_.tiles_w), 1, tiles_h_);
  // With several threads, each thread may take whole blocks through all three stages (its V
  // and M in its own L2, no barrier between the stages, nothing read from the other core's
  // cache): blocks of at most kShareBlockBytes, at least one per thread. The block height is
  // the one whose slowest thread finishes first: it runs ceil(blocks / threads) blocks, each
  // costing its tiles' transforms plus the GEMM over its column tiles, padded to whole tiles.
  // The GEMM's share of a tile's cost grows with the channels (in * out / (in + out) = h:
  // about h / (h + 40), fitted on Zen 3 to squeezenet's 16 -> 64 on 55x55, 0.19, and 32 -> 128
  // on 27x27, 0.43). Where no block fits, the stages are split over the threads as for one.
  const int64_t nr = kernels.gemm_nr;
  const double h = static_cast<double>(g.in_c * g.out_c) / static_cast<double>(g.in_c + g.out_c);
  const double gemm_share = h / (h + 40.0);
  int64_t best_rows = 0;
  double best_cost = 0.0;
  for (int64_t r = 1; threads > 1 && r * p_.tiles_w * per_tile <= kShareBlockBytes; ++r) {
    const int64_t blocks = CeilDiv(tiles_h_, r);
    if (blocks < threads) break;
    const int64_t t = r * p_.tiles_w;
    const double block_cost = static_cast<double>(t) * (1.0 - gemm_share) +
                              static_cast<double>(CeilDiv(t, nr) * nr) * gemm_share;
    const double cost = static_cast<double>(CeilDiv(blocks, threads)) * block_cost;
    if (best_rows == 0 || cost < best_cost) {
      best_rows = r;
      best_cost = cost;
    }
  }
  if (best_rows > 0) {
    shares_ = threads;
    rows_per_block_ = best_rows;
  }
  // Rows of V/M padded to whole vectors of the widest ISA (aligned loads, no false sharing).
  ld_ = CeilDiv(rows_per_block_ * p_.tiles_w, 16) * 16;
  panels_ = CeilDiv(g.out_c, kGemmMr);
  kblocks_ = std::max<int64_t>(1, CeilDiv(g.in_c, kMicroPanelBytes / (kernels.gemm_nr * 4)));
  kc_ = CeilDiv(g.in_c, kblocks_);
}

size_t ConvWinograd::ScratchBytes() const {
  return static_cast<size_t>(kE * (g_.in_c + g_.out_c) * ld_ * shares_) * sizeof(float);
}

void ConvWinograd::Run(const float* x, const float* packed, const float* bias,
                       const float* residual, const ActivationParams& act, float* y, void* scratch,
                       ThreadPool* pool) const {
  const int64_t in_plane = g_.in_plane(), out_plane = g_.out_plane();
  const int64_t per_share = kE * (g_.in_c + g_.out_c) * ld_;  // floats of one V + M
  auto block = [&](int64_t n, int64_t ty0, float* v, ThreadPool* stage_pool) {
    RunBlock(x + n * g_.in_c * in_plane, packed, bias,
             residual ? residual + n * g_.out_c * out_plane : nullptr, act,
             y + n * g_.out_c * out_plane, ty0, std::min(tiles_h_, ty0 + rows_per_block_), v,
             stage_pool);
  };
  const int64_t blocks = CeilDiv(tiles_h_, rows_per_block_);
  if (shares_ > 1 && pool && pool->num_threads() > 1) {
    // Each share claims (image, block) items until none are left, in its own V + M.
    ClaimRanges(pool, shares_, g_.batch * blocks, 1, [&](int slot, int64_t i0, int64_t i1) {
      float* v = static_cast<float*>(scratch) + slot * per_share;
      for (int64_t i = i0; i < i1; ++i) block(i / blocks, i % blocks * rows_per_block_, v, nullptr);
    });
    return;
  }
  for (int64_t n = 0; n < g_.batch; ++n) {
    for (int64_t b = 0; b < blocks; ++b) {
      block(n, b * rows_per_block_, static_cast<float*>(scratch), pool);
    }
  }
}

void ConvWinograd::RunBlock(const float* xn, const float* packed, const float* bias,
                            const float* rn, const ActivationParams& act, float* yn, int64_t ty0,
                            int64_t ty1, float* v, ThreadPool* pool) const {
  float* m = v + kE * g_.in_c * ld_;
  const int64_t v_stride = g_.in_c * ld_, m_stride = g_.out_c * ld_;  // between e
  const int64_t in_plane = g_.in_plane(), out_plane = g_.out_plane();
  const int nr = kernels_->gemm_nr;
  const int64_t tiles = (ty1 - ty0) * p_.tiles_w;
  // (1) V_e[c][t] for every input channel.
  ParallelOrInline(pool, g_.in_c, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      kernels_->wino_input(p_, xn + c * in_plane, ty0, ty1, v + c * ld_, v_stride);
    }
  });
  // (2) M_e = U_e V_e: out_c x tiles, k = in_c, for each of the 36 e.
  ParallelOrInline(pool, kE, 1, [&](int64_t e0, int64_t e1) {
    const Epilogue none;
    for (int64_t e = e0; e < e1; ++e) {
      const float* u = packed + e * panels_ * g_.in_c * kGemmMr;  // conv_wino43_a8
      const float* ve = v + e * v_stride;
      float* me = m + e * m_stride;
      for (int64_t kb = 0; kb < kblocks_; ++kb) {
        const int64_t k0 = kb * kc_, kl = std::min(kc_, g_.in_c - k0);
        const int flags = (kb == 0 ? kGemmFirst : 0) | (kb == kblocks_ - 1 ? kGemmLast : 0);
        for (int64_t t0 = 0; t0 < tiles; t0 += nr) {
          const int tn = static_cast<int>(std::min<int64_t>(nr, tiles - t0));
          for (int64_t p = 0; p < panels_; ++p) {
            const int mr = static_cast<int>(std::min<int64_t>(kGemmMr, g_.out_c - p * kGemmMr));
            // Panel p's rows, k0-th input channel, and the distance to the next channel.
            const float* a = u + (p * g_.in_c + k0) * kGemmMr;
            int64_t lda = kGemmMr;
            if (block16_) {
              const int64_t oc0 = p * kGemmMr;
              a = packed + (((oc0 / 16) * g_.in_c + k0) * kE + e) * 16 + oc0 % 16;
              lda = kE * 16;
            }
            kernels_->gemm(kl, a, lda, ve + k0 * ld_ + t0, ld_, me + p * kGemmMr * ld_ + t0, ld_,
                           mr, tn, flags, none);
          }
        }
      }
    }
  });
  // (3) Y = A^T M A + bias + residual, activation, per output channel.
  ParallelOrInline(pool, g_.out_c, 1, [&](int64_t o0, int64_t o1) {
    for (int64_t oc = o0; oc < o1; ++oc) {
      kernels_->wino_output(p_, m + oc * ld_, m_stride, bias ? bias[oc] : 0.f,
                            rn ? rn + oc * out_plane : nullptr, act, ty0, ty1, yn + oc * out_plane);
    }
  });
}

}  // namespace kiln::cpu
