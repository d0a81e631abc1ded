// ConvGemmT: im2col panels of 8 pixels, then 32-channel tiles over the pool (ISA-independent).
#include "backends/cpu/kernels/conv_gemm_t.h"

#include <algorithm>

#include "backends/cpu/kernels/conv_gemm.h"
#include "kernels/cpu_features.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {

// A 32-channel slice of kc reduction steps (kc x 32 floats) stays in L1 next to the panels'
// slices streaming past it: the L1 less this much (32 KiB slices on a 48 KiB L1; 16 KiB on a
// 32 KiB one, where 32 KiB slices ran Conv_94 of mobilenetv2, 960 -> 320 at 7x7, 5 % slower).
constexpr int64_t kL1ReserveBytes = 16 * 1024;
constexpr int64_t kMaxPixels = 256;  // larger planes fill ConvGemm's tiles well enough

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

ConvGemmT::ConvGemmT(const Conv2dGeometry& g, const CpuKernels& kernels, int threads)
    : g_(g), kernels_(&kernels) {
  im2col_ = Im2colFor(g);
  // Stride-2 layers read phase planes (split per image into the scratch's start), so their
  // panels pack through the lane table too: the generic im2col had been a third of resnet18's
  // 256 -> 512 stride-2 layer on 7x7.
  lanes_ = ConvLaneTable::For(g, kGemmTRows, /*phases=*/true);
  k_ = g.gemm_k();
  n_ = g.out_plane();
  m_ = g.out_c;
  const int64_t slice_bytes =
      std::max<int64_t>(8 * 1024, GetCacheSizes().l1d_bytes - kL1ReserveBytes);
  kc_ = std::min(k_, std::max<int64_t>(16, slice_bytes / (kGemmTCols * 4)));
  panels_ = CeilDiv(n_, kGemmTRows);
  tiles_ = CeilDiv(m_, kGemmTCols);
  // Too few channel tiles to share evenly (160 channels: 5 tiles, 3 + 2 on two threads): split
  // each tile's panels too.
  if (threads > 1 && tiles_ < 4 * threads) {
    psplit_ = std::min<int64_t>(panels_, CeilDiv(4 * threads, tiles_));
  }
}

bool ConvGemmT::Wins(const Conv2dGeometry& g, const CpuKernels& kernels) {
  if (kernels.gemm_t == nullptr || kernels.gemm_t_store == nullptr || g.groups != 1 ||
      g.out_plane() > kMaxPixels)
    return false;
  // Measured (kiln_cpu_conv_bench --block16o against ConvGemm, AVX-512, one thread): 3x3
  // layers win (resnet18's 7x7x512: 3.60 -> 2.91 ms) and so do 1x1 layers on 7x7 maps, with
  // many output channels or few (against ConvGemm's 48-column tiles, runs of the two
  // alternating in one process, best of each: 160 -> 960 0.209 -> 0.194 ms, 960 -> 160
  // 0.209 -> 0.175, 576 -> 160 0.123 -> 0.108, 1024 -> 128 0.177 -> 0.154; at two threads
  // even). Until ConvGemm had the wide tiles, 1x1 layers with few output channels lost here.
  // 1x1 layers whose weights reach 1 MiB win whatever the padding: ConvGemm streams every
  // weight once per pixel tile, from beyond the L2, this orientation once per image
  // (interleaved runs of kiln_cpu_conv_bench, Cascade Lake, one thread: squeezenet's 512 ->
  // 1000 on 13x13 4.41 -> 3.02 ms, densenet121's 1024 -> 512 on 14x14 5.88 -> 4.86 ms;
  // forced onto small reductions, 64 -> 256 and 64 -> 384, it lost 1.36-1.39x).
  constexpr int64_t kWeightsPastL2 = 1 << 20;
  if (g.kernel_size() == 1 && g.out_c * g.gemm_k() * 4 >= kWeightsPastL2) return true;
  // AVX2 (pixels in the lanes, channels in passes of 12 accumulators; Zen 3, one thread, the
  // two alternating in one process, best of each): every plane up to 8x8 with some work wins,
  // 1x1 or 3x3, few channels or many (mobilenetv2's 320 -> 1280 on 7x7 1.17x, 960 -> 160
  // 1.13x, 576 -> 160 1.19x, googlenet's 832 -> 48 1.03x, 48 -> 128 3x3 1.08x, 128 -> 128 on
  // 8x8 1.05x, resnet18's 512 x 7x7 3x3 1.13x and 256 -> 512 stride 2 1.13x); tiny layers lose
  // (32 -> 32 1x1 0.80x, 16 -> 24 3x3 0.79x), in the model also googlenet's 832 -> 32 and
  // 832 -> 48 on 7x7 (0.76x, 0.83x: too few channel tiles), and so do larger planes whatever
  // the channels (96 -> 96 on 10x10 0.97x, 64 -> 160 3x3 on 9x9 0.87x, 256 x 14x14 3x3 0.97x,
  // 384 -> 64 1x1 on 14x14 0.83x), but for the weights past the L2 above (512 -> 1000 on
  // 13x13 1.11x). The table's gemm_t_max_pixels (64) says which rule a table takes.
  if (kernels.gemm_t_max_pixels > 0) {
    // Since its tile has the channels in the lanes (stop 29), also windows read through a lane
    // table with 160 channels or more in and out, on planes up to 16x16 (one thread / two,
    // warm / caches flushed, alone against ConvGemm, alternating: resnet18's 256 x 14x14 3x3
    // 1.07-1.08x / 1.03x, googlenet's 160 -> 320 1.06-1.11x / 1.07-1.12x; with fewer input
    // channels no clear win: 144 -> 288 0.93-1.16x, 128 -> 256 0.99x, 112 -> 224 0.92-1.06x).
    // But windows with 192 outputs or more and at least twice as many outputs as inputs (whose
    // im2col panels serve many channel tiles) win in the models, where the layer's input and
    // weights are cold (ab_ops.py, both orders, against the median op drift): squeezenet's
    // 64 -> 256 and 48 -> 192 on 13x13, their groups 1.12-1.18x and 1.10-1.12x at one thread
    // (1.03-1.11x at two; alone 1.11x and 1.06x warm); googlenet_rw's 3x3 layers on 14x14,
    // 144 -> 288 1.12-1.16x, 112 -> 224 1.15-1.17x, 96 -> 208 1.12-1.15x, 128 -> 256 (with its
    // 1x1 twin) 1.06-1.10x at one thread, 1.02-1.16x at two; resnet18_rw's stride-2 128 -> 256
    // to 14x14 1.07x warm / 1.10x cold alone, its group even to 1.03x in the model.
    const bool wide = g.out_c >= 192 && g.out_c >= 2 * g.in_c;
    if (g.kernel_size() > 1 && ((g.in_c >= 160 && g.out_c >= 160) || wide) &&
        ConvLaneTable::Applies(g, /*phases=*/true)) {
      return true;
    }
    constexpr int64_t kMinWeights = 4096, kMinChannels = 64;
    return g.out_plane() <= kernels.gemm_t_max_pixels && g.out_c >= kMinChannels &&
           g.gemm_k() * g.out_c >= kMinWeights;
  }
  // Same-width stride-1 windows (read through the lane table) with 160 output channels or
  // more win too, whatever the padding: resnet18's 256 x 14x14 3x3 layer 5.06 -> 4.52 ms,
  // squeezenet's 64 -> 256 on 13x13 1.12 -> 1.10 ms (interleaved runs, one thread); since the
  // fp32 tiles' epilogues went branch-free, also googlenet_rw's 3x3 layers on 14x14 to 160,
  // 192, 208 and 224 channels (1.07-1.10x, ConvGemm and ConvGemmT alternating in one
  // process, best of each). With fewer output channels the panels are packed for too few
  // channel tiles: 96 and 128 outputs even, 64 -> 96 0.98x, 32 -> 64 0.89x, densenet121's
  // 128 -> 32 on 14x14 0.73x. Stride-2 windows read through phase planes likewise (resnet18's
  // 128 -> 256 to 14x14 1.09-1.24x, 96 -> 192 1.09x, 128 -> 128 1.01x, 64 -> 128 on 7x7 1.10x
  // but 32 -> 64 0.89x).
  if (g.kernel_size() > 1 && g.out_c >= 160 && ConvLaneTable::Applies(g, /*phases=*/true)) {
    return true;
  }
  // Multiply-adds each orientation issues: ConvGemm pads pixels to its tiles' vectors of 16
  // (AVX-512 here) and channels to 8; this one pads pixels to 8 and channels to 16.
  const int64_t n = g.out_plane(), nr = ConvGemm::TileColumns(g, kernels);
  const int64_t gemm_cols = n / nr * nr + CeilDiv(n % nr, 16) * 16;
  const int64_t gemm = CeilDiv(g.out_c, 8) * 8 * gemm_cols;
  const int64_t transposed = CeilDiv(n, kGemmTRows) * kGemmTRows * CeilDiv(g.out_c, 16) * 16;
  return transposed * 10 < gemm * 9;
}

size_t ConvGemmT::PhaseBytes() const { return lanes_.PhaseBytes(g_.in_c); }

size_t ConvGemmT::ScratchBytes() const {
  return PhaseBytes() + static_cast<size_t>(panels_ * k_ * kGemmTRows) * sizeof(float);
}

// Work item `item` of one image: panels [q_begin, q_end) of one channel tile, their 8 x 32 sums
// in a stack block per panel group, then the epilogue into Y's rows.
void ConvGemmT::RunItem(int64_t item, const float* block16, const float* bias,
                        const float* residual, const ActivationParams& act, float* y,
                        const float* panels) const {
  const int64_t tile = item / psplit_, part = item % psplit_;
  const int64_t q_begin = panels_ * part / psplit_, q_end = panels_ * (part + 1) / psplit_;
  const int64_t oc0 = tile * kGemmTCols;
  const int64_t ocs = std::min<int64_t>(kGemmTCols, m_ - oc0);
  const int nb = ocs > 16 ? 2 : 1;
  const float* w = block16 + (oc0 / 16) * k_ * 16;
  // Panels in groups whose sums fit a 32 KiB stack block; each group runs the reduction in
  // kc slices so a slice of the weights is reused from L1 by every panel of the group.
  constexpr int64_t kGroup = 32;
  alignas(64) float sums[kGroup][kGemmTRows * kGemmTCols];
  bool activated = true;  // by gemm_t_store (its answer is the same for every tile)
  // The tile after this one (the next item of a thread's contiguous range), whose first weight
  // slice is prefetched during this tile's last.
  const int64_t next_oc0 = oc0 + kGemmTCols;
  const float* next_tile_w = next_oc0 < m_ ? block16 + (next_oc0 / 16) * k_ * 16 : nullptr;
  const int next_nb = m_ - next_oc0 > 16 ? 2 : 1;
  for (int64_t q0 = q_begin; q0 < q_end; q0 += kGroup) {
    const int64_t q1 = std::min(q_end, q0 + kGroup);
    for (int64_t k0 = 0; k0 < k_; k0 += kc_) {
      const int64_t kl = std::min(kc_, k_ - k0);
      // Each slice is read from L1 by every panel of the group after the first, which takes
      // it from wherever it is: on a cold layer (a model reads its weights once per run) from
      // memory, in bursts the hardware prefetchers did not cover. So the next slice's lines
      // (one 64-byte line per reduction step and 16-channel block) are requested, to L2, in
      // shares over this slice's panel calls: 960 -> 320 on 7x7 with the caches flushed
      // before each run 1.07-1.15x (against ConvGemm in the same runs), mobilenetv2's 7x7
      // layers in the model 1.06-1.09x, resnet18_rw's 512-channel layers 1.10x (Zen 3).
      const bool last_slice = k0 + kc_ >= k_;
      const float* next_w = last_slice ? (q1 == q_end ? next_tile_w : w) : w + (k0 + kc_) * 16;
      const int64_t next_k0 = last_slice ? 0 : k0 + kc_;
      const int64_t next_lines = next_w ? std::min(kc_, k_ - next_k0) : 0;
      const int blocks = last_slice && q1 == q_end ? next_nb : nb;
      const int64_t calls = q1 - q0;
      for (int64_t q = q0; q < q1; ++q) {
        const int rows = static_cast<int>(std::min<int64_t>(kGemmTRows, n_ - q * kGemmTRows));
        const int64_t l0 = next_lines * (q - q0) / calls, l1 = next_lines * (q - q0 + 1) / calls;
        for (int b = 0; b < blocks; ++b) {
          const float* base = next_w + b * k_ * 16;
          for (int64_t l = l0; l < l1; ++l) __builtin_prefetch(base + l * 16, 0, 2);
        }
        kernels_->gemm_t(kl, panels + (q * k_ + k0) * kGemmTRows, w + k0 * 16, k_ * 16, nb, rows,
                         k0 > 0, sums[q - q0]);
      }
    }
    for (int64_t q = q0; q < q1; ++q) {
      const int64_t p0 = q * kGemmTRows;
      const int rows = static_cast<int>(std::min<int64_t>(kGemmTRows, n_ - p0));
      // The store reads each residual element right before writing y's: they may alias.
      activated = kernels_->gemm_t_store(
          sums[q - q0], rows, static_cast<int>(ocs), bias ? bias + oc0 : nullptr,
          residual ? residual + oc0 * n_ + p0 : nullptr, n_, act, y + oc0 * n_ + p0);
    }
  }
  if (activated) return;
  const int64_t p0 = q_begin * kGemmTRows, p1 = std::min(n_, q_end * kGemmTRows);
  if (p0 == 0 && p1 == n_) {
    float* rows = y + oc0 * n_;  // the tile's planes are contiguous
    kernels_->activate(rows, rows, ocs * n_, act);
    return;
  }
  for (int64_t j = 0; j < ocs; ++j) {
    float* row = y + (oc0 + j) * n_ + p0;
    kernels_->activate(row, row, p1 - p0, act);
  }
}

void ConvGemmT::Run(const float* x, const float* block16, const float* bias, const float* residual,
                    const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const {
  auto* phases = static_cast<float*>(scratch);
  float* panels = reinterpret_cast<float*>(static_cast<char*>(scratch) + PhaseBytes());
  const bool threaded = pool && pool->num_threads() > 1;
  for (int64_t n = 0; n < g_.batch; ++n) {
    const float* xn = x + n * g_.in_c * g_.in_plane();
    if (lanes_.phases) {
      lanes_.SplitPhases(g_, xn, g_.in_c, phases, threaded ? pool : nullptr);
      xn = phases;
    }
    float* yn = y + n * m_ * n_;
    const float* rn = residual ? residual + n * m_ * n_ : nullptr;
    const Im2colParams params = lanes_.Params(im2col_);
    auto pack = [&](int64_t q0, int64_t q1) {
      for (int64_t q = q0; q < q1; ++q) {
        const int64_t p0 = q * kGemmTRows;
        const int tn = static_cast<int>(std::min<int64_t>(kGemmTRows, n_ - p0));
        kernels_->im2col(params, xn, p0, tn, kGemmTRows, 0, k_, panels + q * k_ * kGemmTRows);
      }
    };
    auto items = [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) RunItem(i, block16, bias, rn, act, yn, panels);
    };
    if (threaded) {
      pool->ParallelFor(panels_, pack);
      pool->ParallelFor(tiles_ * psplit_, items);
    } else {
      pack(0, panels_);
      items(0, tiles_ * psplit_);
    }
  }
}

}  // namespace kiln::cpu
