// The micro-kernel contracts every ISA implements and their per-ISA entry points. The ISA
// files include only this (plain structs and declarations), never headers whose inline
// functions they would call: see simd.h for why.
#pragma once

#include <cstdint>

#include "kernels/activation.h"

namespace kiln::cpu {

// Rows (output channels) per packed A panel. Part of the MEANING of the packed GEMM weight
// layouts, not of any ISA: every micro-kernel consumes panels of this height.
inline constexpr int kGemmMr = 8;

// Whether micro-kernel epilogues apply this activation in registers (none / relu / clip); the
// others (transcendental ones among them) are mapped over stored outputs, by the tile store
// (GemmUkernelFn) or by its driver (GemmTStoreFn, ConvGemm's tile groups).
inline bool IsInlineActivation(Activation kind) {
  return kind == Activation::kNone || kind == Activation::kRelu || kind == Activation::kClip;
}

// What a GEMM tile does after the dot products: y = act(acc + bias[r] + residual[r][n]).
struct Epilogue {
  const float* bias = nullptr;      // one per tile row (already offset to the tile), or null
  const float* residual = nullptr;  // tile-shaped, rows `ldr` floats apart, or null
  int64_t ldr = 0;
  ActivationParams act;
};

// C[r][n] = epilogue(C0[r][n] + sum_p A[p][r] * B[p][n]) for r < mr (<= kGemmMr), n < nr (<=
// the kernel's nr). `a` is one packed panel: k groups of kGemmMr floats (rows >= mr are
// ignored), its k groups `lda` floats apart (kGemmMr for conv_gemm_a8 panels, 16 for a half of
// a Block16O block). `b` is k rows `ldb` floats apart; only the first nr floats of each row
// are read.
// Drivers split long reductions into blocks that keep B in L1: C0 is 0 for the first block
// (kGemmFirst) and C's current contents otherwise; only the last block (kGemmLast) applies
// the epilogue, earlier ones store the raw sums. kGemmPaddedB says every B row may be read to
// the kernel's full width (packed panels are zero-padded), which saves masked loads.
// kGemmResidualFirst starts the first block's sums from the epilogue's residual instead of
// zero (and the last block then does not add it): with a split reduction, the residual is read
// before C, which may be the same buffer (FusedConv's in-place residual), is first written.
enum GemmFlags : int {
  kGemmFirst = 1,
  kGemmLast = 2,
  kGemmWhole = kGemmFirst | kGemmLast,
  kGemmPaddedB = 4,
  kGemmResidualFirst = 8,
};
using GemmUkernelFn = void (*)(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                               float* c, int64_t ldc, int mr, int nr, int flags,
                               const Epilogue& ep);

// The GEMM the other way round, for convolutions with small output planes (7x7: 49 pixels
// would fill two 32-column tiles 77 %): rows are output pixels, columns output channels.
// T[r][j] (+)= sum_p A[p][r] * W[j / 16][p][j % 16] for 8 rows r and 16 * nb columns j
// (nb = 1 or 2): `a` is an im2col panel of 8 pixels (k groups of 8 floats), `w` the first of nb
// Block16O blocks `block_stride` floats apart (k rows of 16 channels each). T is 8 x 32 floats,
// row-major T[r][j], 64-byte aligned, overwritten (accumulate = false) or added to; no epilogue.
// `rows` (1-8): the panel's pixels (a plane's last panel may have fewer); the kernel may skip
// the others, whose sums are then unspecified (GemmTStoreFn does not store them).
using GemmTUkernelFn = void (*)(int64_t k, const float* a, const float* w, int64_t block_stride,
                                int nb, int rows, bool accumulate, float* t);
inline constexpr int kGemmTRows = 8, kGemmTCols = 32;
// Writes a GemmTUkernelFn tile T back to planes: y[j * ldy + r] = T[r][j] + bias[j] +
// residual[j * ldy + r] for r < rows (<= 8) and j < cols (<= 32), bias and residual optional
// (each residual element is read before its y element is written: they may alias).
// Applies the activation too when it is none, relu or clip, and returns whether it did (the
// caller maps the others over the planes). T is 64-byte aligned.
using GemmTStoreFn = bool (*)(const float* t, int rows, int cols, const float* bias,
                              const float* residual, int64_t ldy, const ActivationParams& act,
                              float* y);

// Depthwise convolution of `channels` consecutive channel planes: y = act(sum w * x + bias +
// residual) with a kernel_h x kernel_w window, horizontal stride 1 or 2, any vertical stride,
// dilation 1.
struct DwConvParams {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 3, kernel_w = 3;
  int64_t stride_h = 1, stride_w = 1;  // stride_w is 1 or 2
  int64_t pad_top = 0, pad_left = 0;
  ActivationParams act;
};
// x: channels x in_h x in_w (in_w <= kDwConvMaxWidth); w: channels x kernel_h x kernel_w
// (each <= 7); bias: channels or null; residual: like y or null; y: channels x out_h x out_w.
inline constexpr int64_t kDwConvMaxWidth = 3900;
using DwConvFn = void (*)(const DwConvParams& p, const float* x, const float* w, const float* bias,
                          const float* residual, float* y, int64_t channels);

// Depthwise convolution of one block of up to 16 channels with the channels in the lanes
// (AVX-512; AVX2 as two 8-lane halves): the planes go through in-register transposes into a
// zero-padded pixel-major tile of 16 floats per pixel in `scratch` (DwLanesScratchFloats floats,
// 64-byte aligned), every tap of an output pixel is one FMA for the 16 channels, and blocks of 16
// output pixels are transposed back with residual and activation. Planes whose padded input passes
// kDwLanesTileBytes go in bands of DwLanesBandRows output rows, a tile each. x, residual, y:
// `lanes` (<= 16) planes as for DwConvFn; w16: [tap][16] weights (a Block16O block; lanes past
// `lanes` finite); bias16: 16 floats. Windows up to kDwLanesMaxTaps taps.
inline constexpr int64_t kDwLanesMaxTaps = 49;
inline constexpr int64_t kDwLanesTileBytes = 256 * 1024;
// Out of line (ukernel_geometry.cc): an inline copy in a per-ISA file would be compiled with its
// -m flags and could be the one the linker keeps (scripts/check_isa_objects.sh).
int64_t DwLanesTileCols(const DwConvParams& p);
// Output rows per band: as many as fit kDwLanesTileBytes (at least one), evened out.
int64_t DwLanesBandRows(const DwConvParams& p);
int64_t DwLanesTileRows(const DwConvParams& p);
int64_t DwLanesScratchFloats(const DwConvParams& p);
using DwLanesFn = void (*)(const DwConvParams& p, const float* x, const float* w16,
                           const float* bias16, const float* residual, float* y, int lanes,
                           float* scratch);

// Direct convolution of a layer with few input channels (a stem), output channels in the
// lanes (AVX-512) or 8 output pixels in the lanes (AVX2, stride 1 only): output rows [oy0, oy1) of
// y [out_c][out_h][out_w]. xpad: in_c planes of pad_h x pad_w floats, the input at (pad_top,
// pad_left), zero around it and at least (round_up(out_w, 16) - 1) * stride_w + kernel_w columns
// and (out_h - 1) * stride_h + kernel_h rows; w16: Block16O weights ([out_c / 16][in_c * kh *
// kw][16], zero past out_c); bias16: round_up(out_c, 16) floats; windows up to 7x7 (kStemMaxTaps);
// stride_w 1 or 2. Applies relu / clip (other activations: the caller).
inline constexpr int64_t kStemMaxTaps = 4 * 7 * 7;  // in_c * kernel_h * kernel_w
struct StemConvParams {
  int64_t in_c = 0, out_c = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;  // the padded copy's rows and columns
  ActivationParams act;
};
using StemConvFn = void (*)(const StemConvParams& p, const float* xpad, const float* w16,
                            const float* bias16, float* y, int64_t oy0, int64_t oy1);

// Convolutions over NCHW8c activations (ir/layout.h: [C/8][H][W][8] per image) with
// Block16O weights ([ceil(O/16)][C/group][kh][kw][16]): conv_nchw8c.h says which layers.
// x, residual (or null), y: one image; bias: out_c floats or null.
struct NCHW8cConvArgs {
  const float* x = nullptr;
  const float* w = nullptr;
  const float* bias = nullptr;
  const float* residual = nullptr;
  float* y = nullptr;
  int64_t in_c = 0, in_h = 0, in_w = 0, out_c = 0, out_h = 0, out_w = 0;
  int64_t stride = 1, pad_top = 0, pad_left = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  // NCHW8cDirectFn's input: plain channels (the stems) or NCHW8c blocks (dense layers).
  bool x_blocked = false;
  ActivationParams act;
};
// 1x1 stride 1: output pixels [p0, p1) of every output block (in_c, out_c multiples of 8).
using NCHW8cPointwiseFn = void (*)(const NCHW8cConvArgs& a, int64_t p0, int64_t p1);
// Depthwise 1x1, 3x3 or 5x5 (kernel_h), stride 1 or 2, pads <= half the window: channel blocks
// [b0, b1) (no residual).
using NCHW8cDepthwiseFn = void (*)(const NCHW8cConvArgs& a, int64_t b0, int64_t b1);
// Direct convolution into NCHW8c, group 1, any window, stride 1 or 2: of a few plain input
// channels (the stems) or of NCHW8c input (x_blocked; the dense layers). x is the image
// zero-padded (in_h, in_w include the pads; pad_top = pad_left = 0); output rows [oy0, oy1)
// of every output block, plus residual (NCHW8c, or null).
using NCHW8cDirectFn = void (*)(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1);
// Input channels [c0, c1) of a direct layer, as the ISA files' NCHW8cDirectFn take them in
// ranges whose weights stay in L1: the first range starts from the bias and the residual (read
// before its own pixels are written: the residual may share y's buffer), the others from the
// partial sums stored before; the last applies the activation.
struct NCHW8cChannelRange {
  int64_t c0, c1;
  bool first, last;
};

// The im2col view of one group of a 2-D convolution input (plain fields: ISA files include no
// class with inline member functions).
struct Im2colParams {
  int64_t in_h = 0, in_w = 0, out_w = 0;
  int64_t kernel_h = 1, kernel_w = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  // Optional lane table (ConvLaneTable), for layers where every tap reads the input at one
  // offset from the output pixel's index: same-size stride-1 layers (3x3 / 5x5 / 7x7 with
  // output rows as wide as the input's), and stride-2 layers read from phase planes. Tap t
  // of pixel p of channel c reads xg[c * channel_stride + tap_offsets[t] + p] where bit j of
  // tap_lanes[(p0 / nr) * taps + t] is set for pixel p0 + j, else 0 (clear past the plane).
  // Needs p0 % nr == 0 and nr <= 32.
  const uint32_t* tap_lanes = nullptr;
  const int64_t* tap_offsets = nullptr;
  int64_t channel_stride = 0;
};
// Packs im2col rows [k0, k0 + kl) (k = (c * kH + y) * kW + x) for output pixels
// [p0, p0 + tn) of the group starting at `xg` into one B micro-panel: dst[(k - k0) * nr + j],
// zero past tn and in the padding.
using Im2colPanelFn = void (*)(const Im2colParams& p, const float* xg, int64_t p0, int tn, int nr,
                               int64_t k0, int64_t kl, float* dst);

// 2-D max or average pooling of `planes` consecutive planes, horizontal stride 1 or 2,
// dilation 1, windows up to 7 wide and in_w <= kPoolMaxWidth. Max ignores NaN and gives the
// lowest float for an all-padding window; average divides the taps' sum (added in window
// order) by the taps inside the input, or with count_include_pad by those inside input +
// pads: both as the reference kernel does.
inline constexpr int64_t kPoolMaxWidth = 4096;
// A 1-D or 2-D pooling window over a plane (1-D: height 1).
struct PoolWindow2d {
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
};
struct PoolParams : PoolWindow2d {
  bool is_max = true;
  bool count_include_pad = false;
};
using PoolFn = void (*)(const PoolParams& p, const float* x, float* y, int64_t planes);
// Global average or max over each of `planes` planes of `size` floats.
using GlobalPoolFn = void (*)(const float* x, float* y, int64_t planes, int64_t size, bool is_max);

// Winograd F(4x4, 3x3) transforms of a stride-1 3x3 convolution, vectorised over the tiles of
// a tile row. Tile (ty, tx) covers outputs [4ty, 4ty + 4) x [4tx, 4tx + 4) and reads inputs
// [4ty - pad_top, +6) x [4tx - pad_left, +6) (zero outside the input).
struct WinoParams {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t tiles_w = 0;  // tiles per tile row: ceil(out_w / 4)
};
// Input transform of one channel plane for tile rows [ty0, ty1): V_e for e = 0..35 goes to
// v[e * e_stride + t], t = (ty - ty0) * tiles_w + tx.
using WinoInputFn = void (*)(const WinoParams& p, const float* x, int64_t ty0, int64_t ty1,
                             float* v, int64_t e_stride);
// Output transform of one output channel for tile rows [ty0, ty1): reads m[e * e_stride + t],
// writes y (out_h x out_w) = act(A^T M A + bias + residual) inside the output.
using WinoOutputFn = void (*)(const WinoParams& p, const float* m, int64_t e_stride, float bias,
                              const float* residual, const ActivationParams& act, int64_t ty0,
                              int64_t ty1, float* y);

// One row of a matrix-vector product: y[j] = act(sum_p a[p] * b[p * ldb + j] + c[j]) for
// j < n (c may be null). For Gemm/MatMul with a single row of A (batch-1 fully connected),
// where the 8-row GEMM panels would waste 7 rows; memory-bound on B.
using GemvFn = void (*)(int64_t k, const float* a, const float* b, int64_t ldb, const float* c,
                        float* y, int64_t n, const ActivationParams& act);

// The same over Block16O weights (a [n, k] matrix as [ceil(n/16)][k][16]): y[j] =
// act(alpha * sum_p a[p] * W[j][p] + beta * c[j]) for j < n, c a row of n, one value
// (c_scalar) or null. Four 16-column blocks at a time, each block's k x 16 floats streamed once.
using GemvBlock16Fn = void (*)(int64_t k, const float* a, const float* w, int64_t n, float alpha,
                               const float* c, bool c_scalar, float beta, float* y,
                               const ActivationParams& act);

// y = act(x) for n floats (y may be x).
using ActivateFn = void (*)(const float* x, float* y, int64_t n, const ActivationParams& act);
// y[i] = a[i] op b[i] for n floats; an operand flagged scalar is a[0] / b[0] for every i.
enum class BinaryOp : int32_t { kAdd = 0, kSub = 1, kMul = 2, kDiv = 3 };
using BinaryFn = void (*)(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                          float* y, int64_t n);
// y = x * scale + shift for n floats (a channel plane of an inference BatchNormalization).
using AffineFn = void (*)(const float* x, float scale, float shift, float* y, int64_t n);
// Softmax (or log-softmax) of `rows` contiguous rows of n floats: the row's max subtracted
// before exp, the sum accumulated per lane and then across lanes.
using SoftmaxFn = void (*)(const float* x, float* y, int64_t rows, int64_t n, bool log);

// --- Per-ISA entry points (defined in the <op>_<isa>.cc files). ---
void GemmUkernel8x8Scalar(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                          float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep);
void ActivateScalar(const float* x, float* y, int64_t n, const ActivationParams& act);
void GemvBlock16Scalar(int64_t k, const float* a, const float* w, int64_t n, float alpha,
                       const float* c, bool c_scalar, float beta, float* y,
                       const ActivationParams& act);
void GemvScalar(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
                int64_t n, const ActivationParams& act);
void BinaryScalar(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                  float* y, int64_t n);
void AffineScalar(const float* x, float scale, float shift, float* y, int64_t n);
void SoftmaxScalar(const float* x, float* y, int64_t rows, int64_t n, bool log);
void WinoInputScalar(const WinoParams& p, const float* x, int64_t ty0, int64_t ty1, float* v,
                     int64_t e_stride);
void WinoOutputScalar(const WinoParams& p, const float* m, int64_t e_stride, float bias,
                      const float* residual, const ActivationParams& act, int64_t ty0, int64_t ty1,
                      float* y);
void PoolScalar(const PoolParams& p, const float* x, float* y, int64_t planes);
void GlobalPoolScalar(const float* x, float* y, int64_t planes, int64_t size, bool is_max);
// Pooling of NCHW8c block planes (PoolParams over the plane's pixels; AVX-512 puts two
// pixels' blocks in a vector for max pools of stride 1 or 2).
void PoolNCHW8cScalar(const PoolParams& p, const float* x, float* y, int64_t planes);
void Im2colPanelScalar(const Im2colParams& p, const float* xg, int64_t p0, int tn, int nr,
                       int64_t k0, int64_t kl, float* dst);
void DwConvScalar(const DwConvParams& p, const float* x, const float* w, const float* bias,
                  const float* residual, float* y, int64_t channels);
#if defined(__x86_64__) || defined(__i386__)
void NCHW8cPointwiseScalar(const NCHW8cConvArgs& a, int64_t p0, int64_t p1);
void NCHW8cDepthwiseScalar(const NCHW8cConvArgs& a, int64_t b0, int64_t b1);
void NCHW8cDirectScalar(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1);
void NCHW8cDirectAvx2(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1);
void NCHW8cPointwiseAvx2(const NCHW8cConvArgs& a, int64_t p0, int64_t p1);
void NCHW8cDepthwiseAvx2(const NCHW8cConvArgs& a, int64_t b0, int64_t b1);
// AVX-512 over the same NCHW8c layout: a zmm holds two 8-channel groups (two blocks of one
// pixel for 1x1 and stems, two pixels of one block for depthwise).
void NCHW8cDirectAvx512(const NCHW8cConvArgs& a, int64_t oy0, int64_t oy1);
void NCHW8cPointwiseAvx512(const NCHW8cConvArgs& a, int64_t p0, int64_t p1);
void NCHW8cDepthwiseAvx512(const NCHW8cConvArgs& a, int64_t b0, int64_t b1);
void StemConvAvx2(const StemConvParams& p, const float* xpad, const float* w16, const float* bias16,
                  float* y, int64_t oy0, int64_t oy1);
void DwConvLanesAvx2(const DwConvParams& p, const float* x, const float* w16, const float* bias16,
                     const float* residual, float* y, int lanes, float* scratch);
void GemmTUkernelAvx2(int64_t k, const float* a, const float* w, int64_t block_stride, int nb,
                      int rows, bool accumulate, float* t);
bool GemmTStoreAvx2(const float* t, int rows, int cols, const float* bias, const float* residual,
                    int64_t ldy, const ActivationParams& act, float* y);
void GemmUkernel8x24Avx2(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                         float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep);
void ActivateAvx2(const float* x, float* y, int64_t n, const ActivationParams& act);
void GemvBlock16Avx2(int64_t k, const float* a, const float* w, int64_t n, float alpha,
                     const float* c, bool c_scalar, float beta, float* y,
                     const ActivationParams& act);
void GemvAvx2(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
              int64_t n, const ActivationParams& act);
void BinaryAvx2(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar, float* y,
                int64_t n);
void AffineAvx2(const float* x, float scale, float shift, float* y, int64_t n);
void SoftmaxAvx2(const float* x, float* y, int64_t rows, int64_t n, bool log);
void WinoInputAvx2(const WinoParams& p, const float* x, int64_t ty0, int64_t ty1, float* v,
                   int64_t e_stride);
void WinoOutputAvx2(const WinoParams& p, const float* m, int64_t e_stride, float bias,
                    const float* residual, const ActivationParams& act, int64_t ty0, int64_t ty1,
                    float* y);
void PoolAvx2(const PoolParams& p, const float* x, float* y, int64_t planes);
void GlobalPoolAvx2(const float* x, float* y, int64_t planes, int64_t size, bool is_max);
void PoolNCHW8cAvx2(const PoolParams& p, const float* x, float* y, int64_t planes);
void Im2colPanelAvx2(const Im2colParams& p, const float* xg, int64_t p0, int tn, int nr, int64_t k0,
                     int64_t kl, float* dst);
void DwConvAvx2(const DwConvParams& p, const float* x, const float* w, const float* bias,
                const float* residual, float* y, int64_t channels);
void GemmUkernel8x32Avx512(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep);
void GemmUkernel8x48Avx512(int64_t k, const float* a, int64_t lda, const float* b, int64_t ldb,
                           float* c, int64_t ldc, int mr, int nr, int flags, const Epilogue& ep);
void GemmTUkernel8x32Avx512(int64_t k, const float* a, const float* w, int64_t block_stride, int nb,
                            int rows, bool accumulate, float* t);
bool GemmTStoreAvx512(const float* t, int rows, int cols, const float* bias, const float* residual,
                      int64_t ldy, const ActivationParams& act, float* y);
void ActivateAvx512(const float* x, float* y, int64_t n, const ActivationParams& act);
void GemvBlock16Avx512(int64_t k, const float* a, const float* w, int64_t n, float alpha,
                       const float* c, bool c_scalar, float beta, float* y,
                       const ActivationParams& act);
void GemvAvx512(int64_t k, const float* a, const float* b, int64_t ldb, const float* c, float* y,
                int64_t n, const ActivationParams& act);
void BinaryAvx512(BinaryOp op, const float* a, bool a_scalar, const float* b, bool b_scalar,
                  float* y, int64_t n);
void AffineAvx512(const float* x, float scale, float shift, float* y, int64_t n);
void SoftmaxAvx512(const float* x, float* y, int64_t rows, int64_t n, bool log);
void WinoInputAvx512(const WinoParams& p, const float* x, int64_t ty0, int64_t ty1, float* v,
                     int64_t e_stride);
void WinoOutputAvx512(const WinoParams& p, const float* m, int64_t e_stride, float bias,
                      const float* residual, const ActivationParams& act, int64_t ty0, int64_t ty1,
                      float* y);
void PoolAvx512(const PoolParams& p, const float* x, float* y, int64_t planes);
void GlobalPoolAvx512(const float* x, float* y, int64_t planes, int64_t size, bool is_max);
void PoolNCHW8cAvx512(const PoolParams& p, const float* x, float* y, int64_t planes);
void Im2colPanelAvx512(const Im2colParams& p, const float* xg, int64_t p0, int tn, int nr,
                       int64_t k0, int64_t kl, float* dst);
void StemConvAvx512(const StemConvParams& p, const float* xpad, const float* w16,
                    const float* bias16, float* y, int64_t oy0, int64_t oy1);
void DwConvLanesAvx512(const DwConvParams& p, const float* x, const float* w16, const float* bias16,
                       const float* residual, float* y, int lanes, float* scratch);
void DwConvAvx512(const DwConvParams& p, const float* x, const float* w, const float* bias,
                  const float* residual, float* y, int64_t channels);
#endif

}  // namespace kiln::cpu
