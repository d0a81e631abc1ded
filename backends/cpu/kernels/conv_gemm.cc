// ConvGemm: blocking, im2col packing and the threaded tile loop (ISA-independent).
#include "backends/cpu/kernels/conv_gemm.h"

#include <algorithm>

#include "kernels/cpu_features.h"
#include "backends/cpu/ukernels/ukernels.h"

namespace kiln::cpu {
namespace {

// A B micro-panel (kc x nr floats) of about this many bytes stays in L1 while the A panels
// stream past it from L2.
constexpr int64_t kMicroPanelBytes = 16 * 1024;
// A packed (im2col) reduction up to this much longer than kMicroPanelBytes still runs as one
// k block: a second block stores and reloads every output tile, and a 7x7 stem (K = 147:
// 18.4 KiB panels on AVX-512) gains more from that than it loses in L1 (resnet18's stem, one
// thread, Cascade Lake, interleaved runs: two blocks 1.28x slower). Not for 1x1 layers that
// read B straight from the planes, rows a plane apart: K = 144 ran 2-5 % faster in two blocks.
constexpr int64_t kOneBlockBytes = 20 * 1024;
// A kc x nc block of B of about this many bytes stays in L2 next to the kc x M block of A.
constexpr int64_t kBlockBytes = 256 * 1024;
constexpr size_t kAlign = 64;
// How many B tiles ahead RunShare prefetches the output rows (and a 1x1 layer's input rows).
constexpr int64_t kPrefetchTiles = 2;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// A 1x1 layer with stride > 1 and no padding: its im2col matrix is X subsampled.
bool IsStridedPointwise(const Conv2dGeometry& g) {
  return g.kernel_h == 1 && g.kernel_w == 1 && (g.stride_h > 1 || g.stride_w > 1) &&
         g.pad_top == 0 && g.pad_left == 0 && g.pad_bottom == 0 && g.pad_right == 0;
}

// Whether `rows` rows of `row_bytes`, `stride_bytes` apart, put more lines on some L1 set than
// it has ways: a 1x1 layer's B tile read in place (one row per input channel, a plane apart),
// reused from L1 by every panel of weights, would then evict itself. Planes of a multiple of
// 4 KiB (32x32, 64x64) put every row on the same few sets; 56x56 (12,544 bytes) on 32 sets,
// 8 lines each for 128 rows.
bool RowsOverfillL1Sets(int64_t stride_bytes, int64_t rows, int64_t row_bytes) {
  const CacheSizes& cache = GetCacheSizes();
  constexpr int64_t kLine = 64;
  const int64_t sets = std::max<int64_t>(1, cache.l1d_bytes / kLine / cache.l1d_ways);
  std::vector<int64_t> lines(static_cast<size_t>(sets), 0);
  int64_t counted = -1;  // the last line counted (rows of small planes share lines)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t first = std::max(counted + 1, r * stride_bytes / kLine);
    const int64_t last = (r * stride_bytes + row_bytes - 1) / kLine;
    for (int64_t l = first; l <= last; ++l) {
      if (++lines[static_cast<size_t>(l % sets)] > cache.l1d_ways) return true;
    }
    counted = std::max(counted, last);
  }
  return false;
}

// Reduction blocks of a GEMM whose B micro-panel (kc x nr) is read from L1: kc <= this many.
int64_t MicroPanelRows(int64_t nr) { return std::max<int64_t>(8, kMicroPanelBytes / (nr * 4)); }

// Whether ConvGemm reads `g`'s B in place (X itself, or X subsampled) with `nr`-column tiles.
// Stride-1 1x1 layers whose tile rows would overfill L1 sets are packed instead where at least
// 4 panels of weights reuse each packed tile (alone, one thread, Zen 3, alternating: 256 -> 128
// on 32x32 1.65x, on 64x64 1.95x, 32 -> 192 on 64x64 1.8x, 160 -> 128 on 56x56 1.0-1.4x,
// 64 -> 64 on 128x128 1.2x, 128 -> 256 on 16x16 1.05-1.3x; with 3 panels, 144 -> 24 on
// 56x56, packing lost 1.15x).
bool ReadsInPlace(const Conv2dGeometry& g, int64_t nr) {
  if (IsStridedPointwise(g)) return true;
  if (!g.is_pointwise()) return false;
  constexpr int64_t kMinPackedPanels = 4;
  if (g.out_c_per_group() < kMinPackedPanels * kGemmMr) return true;
  const int64_t k = g.gemm_k(), kc = CeilDiv(k, CeilDiv(k, MicroPanelRows(nr)));
  return !RowsOverfillL1Sets(g.in_plane() * 4, kc, nr * 4);
}

// Stride-2 layers whose output rows fit the row phases (phase planes are read).
bool ReadsPhases(const Conv2dGeometry& g, bool phases) {
  return phases && g.stride_h == 2 && g.stride_w == 2 && g.out_h <= (g.in_h + 1) / 2;
}

}  // namespace

bool ConvLaneTable::Applies(const Conv2dGeometry& g, bool phases) {
  return g.dilation_h == 1 && g.dilation_w == 1 && (g.is_same_width() || ReadsPhases(g, phases));
}

ConvLaneTable ConvLaneTable::For(const Conv2dGeometry& g, int64_t nr, bool phases) {
  ConvLaneTable t;
  if (!Applies(g, phases) || nr > 32) return t;
  const bool same = g.is_same_width();
  const bool stride2 = ReadsPhases(g, phases);
  // Stride-2 layers halving the width read two column phases; the others (squeezenet's 224 ->
  // 111 stem) one plane per window column.
  const bool halving = stride2 && g.out_w == (g.in_w + 1) / 2;
  const int64_t taps = g.kernel_size(), n = g.out_plane(), tiles = CeilDiv(n, nr);
  const int64_t s = g.stride_h;
  t.offsets.resize(static_cast<size_t>(taps));
  if (same) {
    t.channel_stride = g.in_plane();
    for (int64_t tap = 0; tap < taps; ++tap) {
      t.offsets[static_cast<size_t>(tap)] =
          (tap / g.kernel_w - g.pad_top) * g.in_w + tap % g.kernel_w - g.pad_left;
    }
  } else {
    t.phases = true;
    t.phase_h = (g.in_h + 1) / 2;
    t.phase_w = g.out_w;
    t.phase_cols = halving ? 2 : g.kernel_w;
    const int64_t plane = t.phase_h * t.phase_w;
    t.channel_stride = 2 * t.phase_cols * plane;
    for (int64_t tap = 0; tap < taps; ++tap) {
      const int64_t dy = tap / g.kernel_w - g.pad_top, dx = tap % g.kernel_w - g.pad_left;
      const int64_t a = dy & 1, b = dx & 1;  // two's complement: the floor-mod parity
      t.offsets[static_cast<size_t>(tap)] =
          halving ? (2 * a + b) * plane + (dy - a) / 2 * t.phase_w + (dx - b) / 2
                  : (a * t.phase_cols + tap % g.kernel_w) * plane + (dy - a) / 2 * t.phase_w;
    }
  }
  // Per tap, the output columns [x_lo, x_hi) that read inside the input; then per tile, the
  // runs of pixels within one output row get their bits by range (session creation stays
  // well under a millisecond for a 224x224 plane; a per-pixel division took 20 ms).
  std::vector<int64_t> x_lo(static_cast<size_t>(taps)), x_hi(static_cast<size_t>(taps));
  for (int64_t tap = 0; tap < taps; ++tap) {
    const int64_t dx = tap % g.kernel_w - g.pad_left;  // ix = ox * s + dx
    x_lo[static_cast<size_t>(tap)] = CeilDiv(std::max<int64_t>(0, -dx), s);
    x_hi[static_cast<size_t>(tap)] =
        g.in_w - dx <= 0 ? 0 : std::min(g.out_w, CeilDiv(g.in_w - dx, s));
  }
  t.lanes.assign(static_cast<size_t>(tiles * taps), 0u);
  for (int64_t tile = 0; tile < tiles; ++tile) {
    const int64_t p_begin = tile * nr, p_end = std::min(n, p_begin + nr);
    for (int64_t p = p_begin; p < p_end;) {
      const int64_t oy = p / g.out_w, ox0 = p % g.out_w;
      const int64_t len = std::min(g.out_w - ox0, p_end - p);
      for (int64_t tap = 0; tap < taps; ++tap) {
        const int64_t iy = oy * s + tap / g.kernel_w - g.pad_top;
        if (iy < 0 || iy >= g.in_h) continue;
        const int64_t lo = std::max(ox0, x_lo[static_cast<size_t>(tap)]);
        const int64_t hi = std::min(ox0 + len, x_hi[static_cast<size_t>(tap)]);
        if (lo >= hi) continue;
        const auto bits = static_cast<uint32_t>(((uint64_t{1} << (hi - lo)) - 1)
                                                << (p - p_begin + lo - ox0));
        t.lanes[static_cast<size_t>(tile * taps + tap)] |= bits;
      }
      p += len;
    }
  }
  return t;
}

Im2colParams ConvLaneTable::Params(const Im2colParams& base) const {
  Im2colParams p = base;
  if (!empty()) {
    p.tap_lanes = lanes.data();
    p.tap_offsets = offsets.data();
    p.channel_stride = channel_stride;
  }
  return p;
}

size_t ConvLaneTable::PhaseBytes(int64_t planes) const {
  if (!phases) return 0;
  const auto floats = static_cast<size_t>(planes * channel_stride);
  return (floats * sizeof(float) + kAlign - 1) / kAlign * kAlign;
}

void ConvLaneTable::SplitPhases(const Conv2dGeometry& g, const float* x, int64_t planes, float* dst,
                                ThreadPool* pool) const {
  if (pool && planes > 1) {
    pool->ParallelFor(planes, [&](int64_t c0, int64_t c1) {
      SplitPhases(g, x + c0 * g.in_plane(), c1 - c0, dst + c0 * channel_stride);
    });
    return;
  }
  const int64_t plane = phase_h * phase_w;
  if (phase_cols != 2) {
    // Plane (a, kx) row i, column j: x[2i + a][2j + kx - pad_left], 0 outside the input.
    for (int64_t c = 0; c < planes; ++c) {
      const float* xc = x + c * g.in_plane();
      for (int64_t a = 0; a < 2; ++a) {
        for (int64_t kx = 0; kx < phase_cols; ++kx) {
          float* q = dst + c * channel_stride + (a * phase_cols + kx) * plane;
          const int64_t dx = kx - g.pad_left;
          // Columns j with 0 <= 2j + dx < in_w: [j0, j1).
          const int64_t j0 = std::min(phase_w, CeilDiv(std::max<int64_t>(0, -dx), 2));
          const int64_t j1 = std::max(j0, std::min(phase_w, CeilDiv(g.in_w - dx, 2)));
          for (int64_t i = 0; i < phase_h; ++i, q += phase_w) {
            const int64_t iy = 2 * i + a;
            if (iy >= g.in_h) {
              std::fill(q, q + phase_w, 0.f);
              continue;
            }
            const float* row = xc + iy * g.in_w + dx;
            std::fill(q, q + j0, 0.f);
            for (int64_t j = j0; j < j1; ++j) q[j] = row[2 * j];
            std::fill(q + j1, q + phase_w, 0.f);
          }
        }
      }
    }
    return;
  }
  for (int64_t c = 0; c < planes; ++c) {
    const float* xc = x + c * g.in_plane();
    float* qc = dst + c * channel_stride;
    for (int64_t a = 0; a < 2; ++a) {
      for (int64_t i = 0; i < phase_h; ++i) {
        const int64_t iy = 2 * i + a;
        float* even = qc + (2 * a) * plane + i * phase_w;
        float* odd = qc + (2 * a + 1) * plane + i * phase_w;
        if (iy >= g.in_h) {
          std::fill(even, even + phase_w, 0.f);
          std::fill(odd, odd + phase_w, 0.f);
          continue;
        }
        const float* row = xc + iy * g.in_w;
        // Whole column pairs in a loop without a condition (so it vectorizes), then the odd
        // last column of an odd-width row (phase_w = ceil(in_w / 2)).
        const int64_t pairs = g.in_w / 2;
        for (int64_t j = 0; j < pairs; ++j) {
          even[j] = row[2 * j];
          odd[j] = row[2 * j + 1];
        }
        if (pairs < phase_w) {
          even[pairs] = row[2 * pairs];
          odd[pairs] = 0.f;
        }
      }
    }
  }
}

Im2colParams Im2colFor(const Conv2dGeometry& g) {
  Im2colParams p;
  p.in_h = g.in_h;
  p.in_w = g.in_w;
  p.out_w = g.out_w;
  p.kernel_h = g.kernel_h;
  p.kernel_w = g.kernel_w;
  p.stride_h = g.stride_h;
  p.stride_w = g.stride_w;
  p.dilation_h = g.dilation_h;
  p.dilation_w = g.dilation_w;
  p.pad_top = g.pad_top;
  p.pad_left = g.pad_left;
  return p;
}

ConvGemm::ConvGemm(const Conv2dGeometry& g, const CpuKernels& kernels, int threads,
                   ConvWeights weights)
    : g_(g), kernels_(&kernels), weights_(weights) {
  subsample_ = IsStridedPointwise(g);
  nr_ = TileColumns(g, kernels);
  direct_ = ReadsInPlace(g, nr_);
  gemm_ = nr_ == kernels.gemm_nr ? kernels.gemm : kernels.gemm_wide;
  im2col_ = Im2colFor(g);
  k_ = g.gemm_k();
  n_ = g.out_plane();
  const int64_t nr = nr_;
  if (!direct_) lanes_ = ConvLaneTable::For(g, nr, /*phases=*/g.groups == 1);
  kblocks_ = !direct_ && k_ * nr * 4 <= kOneBlockBytes ? 1 : CeilDiv(k_, MicroPanelRows(nr));
  kc_ = CeilDiv(k_, kblocks_);
  nc_ = std::max<int64_t>(1, kBlockBytes / (kc_ * 4) / nr) * nr;
  nc_ = std::min(nc_, CeilDiv(n_, nr) * nr);
  nblocks_ = CeilDiv(n_, nc_);
  // Where B (K x N) is at least 4x the weights (M x K), at least a column block per thread:
  // a share of output channels reads the whole of B, so with one block two threads each
  // streamed all of a 1x1 layer's input (squeezenet's 256 -> 32 on 27x27 ran slower at two
  // threads than at one). Where the weights are as large, splitting the output channels
  // (below) keeps each thread's share of them instead: 13x13 and 14x14 layers ran 1.2-1.3x
  // slower split by columns.
  if (threads > 1 && n_ >= 4 * g.out_c_per_group()) {
    nblocks_ = std::max(nblocks_, std::min<int64_t>(CeilDiv(n_, nr), threads));
  }
  // Blocks of equal width (to a tile): the shares take whole blocks, and a 2720 + 416 split
  // of a 3136-column plane would leave one thread most of the work.
  nc_ = CeilDiv(CeilDiv(n_, nblocks_), nr) * nr;
  nblocks_ = CeilDiv(n_, nc_);
  panels_ = CeilDiv(g.out_c_per_group(), kGemmMr);
  shares_ = std::max(1, threads);
  const int64_t base = g.batch * g.groups * nblocks_;
  // Too few blocks to feed every share evenly: also split the output channels (each share
  // then packs the same B block itself; cheap next to the panels it multiplies).
  if (shares_ > 1 && base < 4 * shares_) {
    msplit_ = std::min<int64_t>(panels_, CeilDiv(4 * shares_, base));
  }
  units_ = base * msplit_;
  shares_ = static_cast<int>(std::min<int64_t>(shares_, std::max<int64_t>(units_, 1)));
}

int ConvGemm::TileColumns(const Conv2dGeometry& g, const CpuKernels& kernels) {
  return kernels.gemm_wide != nullptr && ReadsInPlace(g, kernels.gemm_wide_nr)
             ? kernels.gemm_wide_nr
             : kernels.gemm_nr;
}

size_t ConvGemm::SubsampleBytes() const {
  if (!subsample_) return 0;
  const auto floats = static_cast<size_t>(g_.batch * g_.in_c * n_);
  return (floats * sizeof(float) + kAlign - 1) / kAlign * kAlign;
}

size_t ConvGemm::PhaseBytes() const { return lanes_.PhaseBytes(g_.batch * g_.in_c); }

size_t ConvGemm::ScratchBytes() const {
  if (direct_) return SubsampleBytes();
  const size_t per =
      (static_cast<size_t>(kc_ * nc_) * sizeof(float) + kAlign - 1) / kAlign * kAlign;
  return PhaseBytes() + per * static_cast<size_t>(shares_);
}

// Packs rows [k0, k0 + kl) and columns [n0, n0 + count) of one group's im2col matrix into
// micro-panels of nr columns: dst[(t * kl + k) * nr + j] for tile t.
void ConvGemm::PackBlock(const float* xg, int64_t n0, int64_t count, int64_t k0, int64_t kl,
                         float* dst) const {
  const int nr = nr_;
  const Im2colParams params = lanes_.Params(im2col_);
  for (int64_t t0 = 0; t0 < count; t0 += nr) {
    const int tn = static_cast<int>(std::min<int64_t>(nr, count - t0));
    kernels_->im2col(params, xg, n0 + t0, tn, nr, k0, kl, dst + (t0 / nr) * kl * nr);
  }
}

void ConvGemm::RunShare(int share, const float* x, const float* packed, const float* bias,
                        const float* residual, const ActivationParams& act, float* y,
                        float* bbuf) const {
  const int nr = nr_;
  const GemmUkernelFn gemm = gemm_;
  const int64_t ocpg = g_.out_c_per_group();
  const int64_t u0 = units_ * share / shares_, u1 = units_ * (share + 1) / shares_;
  for (int64_t u = u0; u < u1;) {
    // This share's consecutive units of one B block (ms is the innermost index) cover one
    // contiguous range of panels: the block is packed once for all of them.
    const int64_t key = u / msplit_;
    const int64_t ms0 = u % msplit_;
    const int64_t ms1 = std::min(msplit_, ms0 + (u1 - u));
    u += ms1 - ms0;
    const int64_t nb = key % nblocks_;
    const int64_t grp = (key / nblocks_) % g_.groups;
    const int64_t n = key / nblocks_ / g_.groups;
    const int64_t n0 = nb * nc_, count = std::min(nc_, n_ - n0);
    // x is the phase planes where the lane table reads them (lanes_.channel_stride apart), or
    // the subsampled planes (n_ apart).
    const int64_t channel_stride =
        lanes_.phases ? lanes_.channel_stride : (subsample_ ? n_ : g_.in_plane());
    const float* xg = x + (n * g_.in_c + grp * g_.in_c_per_group()) * channel_stride;
    const int64_t p0 = panels_ * ms0 / msplit_, p1 = panels_ * ms1 / msplit_;
    const int64_t oc_base = n * g_.out_c + grp * ocpg;
    for (int64_t kb = 0; kb < kblocks_; ++kb) {
      const int64_t k0 = kb * kc_, kl = std::min(kc_, k_ - k0);
      // With several k blocks the residual (which may share y's buffer) is read up front.
      const int flags = (kb == 0 ? kGemmFirst : 0) | (kb == kblocks_ - 1 ? kGemmLast : 0) |
                        (direct_ ? 0 : kGemmPaddedB) |
                        (residual && kblocks_ > 1 ? kGemmResidualFirst : 0);
      // B micro-panel t: direct from X (rows n_ apart) or packed (rows nr apart).
      const float* b;
      int64_t ldb, tile_stride;
      if (direct_) {
        b = xg + k0 * n_ + n0;
        ldb = n_;
        tile_stride = nr;
      } else {
        PackBlock(xg, n0, count, k0, kl, bbuf);
        b = bbuf;
        ldb = nr;
        tile_stride = kl * nr;
      }
      // Tiles in groups, each panel over a whole group before the next panel: a 1x1 layer that
      // writes far more than it reads (16 -> 96 on 112x112 writes 4.8 MB) then writes each
      // output row 4 tiles (6 lines on AVX2) at a time instead of one, and the group's B
      // (K x 4 tiles, L1 at these K) is read once per panel. Alone against one tile at a time
      // (Zen 3, alternating in one process): 16 -> 96 on 112x112 1.10-1.18x warm, 1.17-1.26x
      // cold (one and two threads), 24 -> 144 on 56x56 0.99-1.09x, 32 -> 192 on 28x28
      // 0.99-1.14x; in the models (ab_ops.py, both orders) mobilenetv2's 96 x 112x112 1.08x
      // and 1.21x, efficientnet_b0_rw's 0.94x and 1.08x. Where K is larger the group's B
      // leaves L1 (96 -> 24 on 56x56 0.92-0.97x cold with 4 or 16 tiles): one tile at a time.
      // The tiles of a group leave each panel row's outputs contiguous: an activation the tile
      // store does not inline (SiLU, sigmoid, tanh: over the stored tile, 3 vectors a row on
      // AVX2) runs once over the group's row instead (12 vectors: SiLU over 24 floats a call
      // 1.08 ns a float, over 96 0.49, Zen 3). So other layers with such an activation and a
      // short reduction group their tiles too: efficientnet's 3 -> 32 stride-2 stem with SiLU
      // (K = 27) 1.18-1.19x warm, 1.14-1.17x cold, at one and two threads. And packed layers
      // with a reduction of at most 32 (the RGB stems, K = 27) whatever their activation: in
      // the models (ab_ops.py, both orders, against the median op drift) squeezenet's 3 -> 64
      // stem 1.10-1.17x and mobilenetv2's 3 -> 32 one 1.03-1.10x at one thread, even (0.97-1.03x)
      // at two (alone, stop 29: 1.01-1.07x).
      constexpr int64_t kStemReduction = 32;
      const bool out_of_line_act = !IsInlineActivation(act.kind);
      const int64_t group = (direct_ && ocpg >= 2 * kl) || (out_of_line_act && kl <= 64) ||
                                    (!direct_ && kl <= kStemReduction)
                                ? 4
                                : 1;
      const bool group_act = group > 1 && kb == kblocks_ - 1 && out_of_line_act;
      for (int64_t g0 = 0; g0 < count; g0 += group * nr) {
        const int64_t g1 = std::min(count, g0 + group * nr);
        for (int64_t p = p0; p < p1; ++p) {
          const int64_t oc0 = p * kGemmMr;
          // The panel's k0-th group of 8 rows, and the distance to the next k.
          const float* a;
          int64_t lda;
          if (weights_ == ConvWeights::kPanels8) {
            a = packed + ((grp * panels_ + p) * k_ + k0) * kGemmMr;
            lda = kGemmMr;
          } else {
            const int64_t oc = grp * ocpg + oc0;
            a = packed + ((oc / 16) * k_ + k0) * 16 + oc % 16;
            lda = 16;
          }
          const int mr = static_cast<int>(std::min<int64_t>(kGemmMr, ocpg - oc0));
          // The next panel's A rows lie a whole K further on (for Block16O: unless it is the
          // second half of this block, whose lines this panel loads already): start its lines
          // early, hardware prefetchers do not cross into it by themselves.
          const float* next = nullptr;
          if (p + 1 < p1) {
            if (weights_ == ConvWeights::kPanels8) {
              next = a + k_ * lda;
            } else if ((grp * ocpg + oc0) % 16 != 0) {
              next = a - kGemmMr + k_ * 16;
            }
          }
          if (next) {
            const char* bytes = reinterpret_cast<const char*>(next);
            for (int64_t off = 0; off < kl * lda * 4; off += 64) __builtin_prefetch(bytes + off);
          }
          for (int64_t t0 = g0; t0 < g1; t0 += nr) {
            const int tn = static_cast<int>(std::min<int64_t>(nr, count - t0));
            const float* bt = b + (t0 / nr) * tile_stride;
            // Direct B rows lie a whole plane apart: a 1x1 layer's tile reads K separate
            // pages, more streams than the hardware prefetchers follow. Request the tile after
            // next.
            if (direct_ && p == p0 && t0 + kPrefetchTiles * nr < count) {
              const float* ahead = bt + kPrefetchTiles * nr;
              for (int64_t k = 0; k < kl; ++k) {
                const char* row = reinterpret_cast<const char*>(ahead + k * ldb);
                for (int off = 0; off < nr * 4; off += 64) __builtin_prefetch(row + off);
              }
            }
            const int64_t c_off = (oc_base + oc0) * n_ + n0 + t0;
            Epilogue ep;
            ep.bias = bias ? bias + grp * ocpg + oc0 : nullptr;
            ep.residual = residual ? residual + c_off : nullptr;
            ep.ldr = n_;
            if (!group_act) ep.act = act;
            // The same for the rows this panel writes two tiles on: every tile writes mr rows
            // a plane apart (im2col layers too: a first layer writes 64 rows per 32 columns).
            if (kb == kblocks_ - 1 && t0 + kPrefetchTiles * nr < count) {
              for (int r = 0; r < mr; ++r) {
                const char* row =
                    reinterpret_cast<const char*>(y + c_off + r * n_ + kPrefetchTiles * nr);
                for (int off = 0; off < nr * 4; off += 64) __builtin_prefetch(row + off, 1);
              }
            }
            gemm(kl, a, lda, bt, ldb, y + c_off, n_, mr, tn, flags, ep);
          }
          if (group_act) {
            for (int r = 0; r < mr; ++r) {
              float* row = y + (oc_base + oc0 + r) * n_ + n0 + g0;
              kernels_->activate(row, row, g1 - g0, act);
            }
          }
        }
      }
    }
  }
}

void ConvGemm::Run(const float* x, const float* packed, const float* bias, const float* residual,
                   const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const {
  const size_t per =
      direct_ ? 0 : (static_cast<size_t>(kc_ * nc_) * sizeof(float) + kAlign - 1) / kAlign * kAlign;
  const float* src = x;
  if (lanes_.phases) {
    // Stride-2 layers read their phase planes (the scratch's first PhaseBytes), split first.
    auto* phases = static_cast<float*>(scratch);
    lanes_.SplitPhases(g_, x, g_.batch * g_.in_c, phases, shares_ > 1 ? pool : nullptr);
    src = phases;
  } else if (subsample_) {
    // Strided 1x1 layers (resnet's downsampling shortcuts) read every stride-th pixel: only
    // those are copied, and the GEMM then reads them in place as a stride-1 1x1 layer's.
    auto* sub = static_cast<float*>(scratch);
    const int64_t planes = g_.batch * g_.in_c;
    auto gather = [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c) {
        const float* xc = x + c * g_.in_plane();
        float* dst = sub + c * n_;
        for (int64_t oy = 0; oy < g_.out_h; ++oy) {
          const float* row = xc + oy * g_.stride_h * g_.in_w;
          for (int64_t ox = 0; ox < g_.out_w; ++ox) dst[oy * g_.out_w + ox] = row[ox * g_.stride_w];
        }
      }
    };
    if (pool && shares_ > 1) {
      pool->ParallelFor(planes, gather);
    } else {
      gather(0, planes);
    }
    src = sub;
  }
  char* buffers = static_cast<char*>(scratch) + PhaseBytes() + SubsampleBytes();
  auto share_fn = [&](int64_t s0, int64_t s1) {
    for (int64_t s = s0; s < s1; ++s) {
      float* bbuf =
          direct_ ? nullptr : reinterpret_cast<float*>(buffers + per * static_cast<size_t>(s));
      RunShare(static_cast<int>(s), src, packed, bias, residual, act, y, bbuf);
    }
  };
  if (pool && shares_ > 1) {
    pool->ParallelFor(shares_, share_fn);
  } else {
    share_fn(0, shares_);
  }
}

}  // namespace kiln::cpu
