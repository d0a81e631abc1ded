// Convolution as packed GEMM, the shared driver of every ISA: per group,
//   Y (out_c/group x OH*OW) = A (packed weights, out_c/group x K) * B (K x OH*OW),
// where B is X itself for 1x1 stride-1 unpadded convs (no copy) and otherwise im2col panels
// packed per block into scratch. Blocking as in GotoBLAS: a kc x nc block of B in L2, its
// kc x nr micro-panels in L1 while the kc x 8 A panels stream past; the reduction is split
// into kc blocks that accumulate in C. Blocks are spread over the thread pool with a static
// split, one B buffer per share, so no two threads write the same output tile.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/activation.h"
#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/tables/ukernel_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

// How the weights (the GEMM's A) are stored.
enum class ConvWeights {
  kPanels8,        // conv_gemm_a8 (conv_packing.h): per group, panels of 8 output channels
  kBlock16O,       // ir/layout.h kBlock16O: blocks of 16 output channels over all groups (needs
                   // groups == 1 or out_c / groups a multiple of 8, so no panel straddles a block)
  kWino43Block16,  // Winograd only: transformed weights in 16-channel blocks (the layout
                   // proposed for the compiler, conv_packing.h PackConvWino43Block16)
};

// The im2col packer's view of one group of `g` (shared by ConvGemm and ConvGemmT).
Im2colParams Im2colFor(const Conv2dGeometry& g);
// The lane table of Im2colParams for `g` packed in tiles of nr pixels (nr <= 32): for
// stride-1 undilated layers with output rows as wide as the input's, read from the input;
// for stride-2 undilated layers, read from phase planes when `phases` allows them. Empty
// `lanes` otherwise.
struct ConvLaneTable {
  std::vector<uint32_t> lanes;   // [tile][tap] lane bits
  std::vector<int64_t> offsets;  // [tap] offset from the pixel index
  int64_t channel_stride = 0;    // floats between input channels (of the phase planes)
  // Stride 2: the input is first split per channel into 4 phase planes of phase_h x phase_w
  // floats, plane (a, b) holding x[2i + a][2j + b] (0 past the input): then tap (ky, kx) of
  // output (oy, ox) reads plane ((ky - pt) & 1, (kx - pl) & 1) at row oy + floor((ky - pt) / 2)
  // and column ox + floor((kx - pl) / 2), an offset from oy * out_w + ox as phase_w = out_w.
  // Stride-2 layers whose output is narrower than that (out_w < ceil(in_w / 2): the last
  // column's taps would wrap into the next row) get one plane per window column instead of
  // two column phases: plane (a, kx) holds x[2i + a][2j + kx - pad_left] (0 outside), read at
  // row oy + floor((ky - pt) / 2) and column ox.
  bool phases = false;
  int64_t phase_h = 0, phase_w = 0;
  int64_t phase_cols = 2;  // column planes per row phase: 2, or kernel_w

  static ConvLaneTable For(const Conv2dGeometry& g, int64_t nr, bool phases);
  // Whether For(g, nr, phases) gives a table for nr <= 32, without building it.
  static bool Applies(const Conv2dGeometry& g, bool phases);
  bool empty() const { return lanes.empty(); }
  // Im2colParams reading through this table (its addresses are taken here: keep it alive).
  Im2colParams Params(const Im2colParams& base) const;
  // Splits `planes` input planes of g into phase planes at dst (channel_stride floats each),
  // over `pool` where there is one.
  void SplitPhases(const Conv2dGeometry& g, const float* x, int64_t planes, float* dst,
                   ThreadPool* pool = nullptr) const;
  // The bytes of `planes` channels' phase planes, 64-byte aligned (0 without phases).
  size_t PhaseBytes(int64_t planes) const;
};

class ConvGemm {
 public:
  ConvGemm() = default;
  // Plans blocking for `g` with `kernels`' micro-kernel on up to `threads` threads.
  ConvGemm(const Conv2dGeometry& g, const CpuKernels& kernels, int threads,
           ConvWeights weights = ConvWeights::kPanels8);

  // Columns per micro-kernel tile for `g`: the wide kernel's for unpadded 1x1 layers (B read
  // in place, or subsampled) where the table has one, gemm_nr otherwise.
  static int TileColumns(const Conv2dGeometry& g, const CpuKernels& kernels);

  size_t ScratchBytes() const;
  // x [N, C, H, W]; packed: the weights in the planned format; bias [out_c] or null; residual
  // shaped like y
  // or null (added before the activation); y [N, out_c, OH, OW]. `pool` may be null.
  void Run(const float* x, const float* packed, const float* bias, const float* residual,
           const ActivationParams& act, float* y, void* scratch, ThreadPool* pool) const;

 private:
  void RunShare(int share, const float* x, const float* packed, const float* bias,
                const float* residual, const ActivationParams& act, float* y, float* bbuf) const;
  void PackBlock(const float* xg, int64_t n0, int64_t count, int64_t k0, int64_t kl,
                 float* dst) const;
  size_t PhaseBytes() const;  // the stride-2 phase planes at the start of the scratch
  size_t SubsampleBytes() const;

  Conv2dGeometry g_;
  const CpuKernels* kernels_ = nullptr;
  ConvWeights weights_ = ConvWeights::kPanels8;
  bool direct_ = false;           // B = X (1x1, stride 1, no padding, its tile rows not
                                  // overfilling L1 sets), or X subsampled:
  bool subsample_ = false;        // 1x1 strided, no padding: B = every stride-th pixel of X
                                  // (the scratch's first SubsampleBytes), then as direct_
  GemmUkernelFn gemm_ = nullptr;  // the micro-kernel (TileColumns wide)
  int nr_ = 0;
  Im2colParams im2col_;
  ConvLaneTable lanes_;           // empty where the row-segment packer runs
  int shares_ = 1;                // static work shares (one B buffer each)
  int64_t k_ = 0, n_ = 0;         // GEMM K and N (= OH * OW)
  int64_t kc_ = 0, kblocks_ = 1;  // reduction blocks: a kc x nr B micro-panel fits in L1
  int64_t nc_ = 0;  // pixels per B block (a multiple of nr): a kc x nc block fits in L2
  int64_t nblocks_ = 0, panels_ = 0, msplit_ = 1, units_ = 0;
};

}  // namespace kiln::cpu
