// The int8 micro-kernel contracts (GEMM over kI8O8K4 weights, the requantize epilogue, the
// depthwise accumulation) and their per-ISA entry points (tables: int8_table.h). The ISA
// files include only this header (plain structs and declarations; see simd.h for why). Plain
// functions over plain pointers, no Session or IR types: the QConv driver (qconv.cc) calls them,
// and other executors may too. Every one is bit-exact with the integer reference kernels
// (docs/quantization.md): all arithmetic is on integers, and a sum that the reference keeps in
// int32 may wrap here only where the true value fits int32 again (modular arithmetic makes that
// exact).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "kernels/requantize.h"

namespace kiln::cpu {

// Output channels per packed int8 panel and reduction steps per group (the kI8O8K4 layout:
// one 32-byte group holds 4 reduction steps of 8 output channels).
inline constexpr int kQGemmMr = 8;
inline constexpr int kQGemmKGroup = 4;

// D[r][j] (+)= sum over g < k4, q < 4 of A[g][r][q] * B[g][j][q], for r < mr, j < nr; rows
// and columns past mr / nr are computed but not stored. `a` is one packed weight panel (k4
// groups of 8 x 4 signed bytes, contiguous); `b` holds k4 groups of at least the kernel's nr
// columns x 4 unsigned bytes, its groups `b_stride` bytes apart, each group's columns 4 bytes
// apart (the kernel reads nr full columns: the caller pads). d is int32 with rows `ldd` apart;
// `accumulate` adds to d instead of overwriting it.
using QGemmUkernelFn = void (*)(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride,
                                int32_t* d, int64_t ldd, int mr, int nr, bool accumulate);

// What one output channel's epilogue does to a row of n raw sums d[j] (docs/quantization.md):
//   acc = d[j] + offset - zero * col_sum[j]            (wrapping int32; the true value fits)
//   residual: acc = SaturatingAdd(acc, Requantize(r[j] - residual_zero, residual_requant))
//   8-bit out: y = clamp(out_zero + Requantize(acc, requant), qmin, qmax)
//   i32 out:   y = clamp(acc, qmin, qmax)
enum class QType : int32_t { kU8 = 0, kI8 = 1, kI32 = 2 };
struct QRowParams {
  int32_t offset = 0;
  int32_t zero = 0;  // 0: col_sum is not read
  Requant requant;
  const void* residual = nullptr;  // n codes of residual_type, or null
  QType residual_type = QType::kU8;
  int32_t residual_zero = 0;
  Requant residual_requant;
  QType out_type = QType::kU8;
  int32_t out_zero = 0, qmin = 0, qmax = 255;
  // Derived from requant (DeriveHighHalf): with shift in [33, 63] the VNNI epilogue's
  // high-half form, rounding term 2^(shift - 33) and shift shift - 32; 0 and 0 otherwise
  // (the 64-bit form: correct whatever these hold, only slower).
  int32_t high_round = 0, high_shift = 0;
};
inline void DeriveHighHalf(QRowParams& p) {
  const int32_t s = p.requant.shift;
  const bool high = s >= 33 && s <= 63;
  p.high_round = high ? int32_t{1} << (s - 33) : 0;
  p.high_shift = high ? s - 32 : 0;
}
using QRequantRowFn = void (*)(const QRowParams& p, const int32_t* d, const int32_t* col_sum,
                               void* y, int64_t n);

// Depthwise accumulation of one channel: acc[oy * out_w + ox] = sum over taps of
// w[ky * kernel_w + kx] * x[(oy * stride_h + ky * dilation_h) * row + (ox * stride_w + kx *
// dilation_w)] where x is the channel's centred (code - zero point) int16 plane, already padded
// (padding holds 0), split into stride_w column phases: column c lives in phase c % stride_w at
// index c / stride_w, phases `phase_stride` int16 apart, rows `row` apart. w are the centred
// weights (code - weight zero point). Every row of every phase is readable up to
// ceil(out_w / 32) * 32 + (kernel_w - 1) * dilation_w / stride_w + 1 elements.
struct QDwParams {
  int64_t out_h = 0, out_w = 0;
  int64_t kernel_h = 3, kernel_w = 3;
  int64_t stride_h = 1, stride_w = 1;
  int64_t dilation_h = 1, dilation_w = 1;
  int64_t row = 0, phase_stride = 0;
};
// The same for mr rows at once (one call per GEMM tile): rows[r] (no residual, 8-bit output,
// out_zero/qmin/qmax/out_type those of rows[0]) over d + r * ldd, writing y + r * ldy.
using QRequantRowsFn = void (*)(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                                const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n);

// The GEMM over several taps whose B operands are offsets of one another (stride-1
// convolutions read in place): D = sum over t < taps of the QGemmUkernelFn product of the
// panel's t-th block of c4 groups (a + t * c4 * 32) with b + tap_off[t] bytes, accumulated in
// registers across taps; stored like QGemmUkernelFn with accumulate = false.
using QGemmTapsFn = void (*)(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                             const uint8_t* b, int64_t b_stride, int32_t* d, int64_t ldd, int mr,
                             int nr);

// The GEMM micro-kernel and the rows epilogue fused (the whole reduction in one call, so the
// sums never leave registers): D of QGemmUkernelFn, then QRequantRowsFn's epilogue of rows
// [0, mr) over columns [0, nr) into y + r * ldy, with the residual codes residual + r * ldr
// (rows[r]'s residual parameters) when residual is not null. One call runs `panels`
// consecutive panels over the same columns b: panel p is a + p * k4 * 32 with rows rows + 8 p,
// output y + 8 p * ldy and residual residual + 8 p * ldr, 8 rows each but the last, which has
// mr (a pointwise layer's whole share of output channels per call: per call, the argument
// set-up and the epilogue constants had cost as much as a K = 16 panel's products).
using QGemmRequantFn = void (*)(int64_t k4, const int8_t* a, int64_t panels, const uint8_t* b,
                                int64_t b_stride, const QRowParams* rows, int mr, int nr,
                                const int32_t* col_sum, const uint8_t* residual, int64_t ldr,
                                uint8_t* y, int64_t ldy);

// QGemmTapsFn's products with QGemmRequantFn's epilogue, one panel (the sums never leave
// registers): rows [0, mr) over columns [0, nr) into y + r * ldy (8-bit output), with the
// residual codes residual + r * ldr when residual is not null.
using QGemmTapsRequantFn = void (*)(int64_t c4, int64_t taps, const int64_t* tap_off,
                                    const int8_t* a, const uint8_t* b, int64_t b_stride,
                                    const QRowParams* rows, int mr, int nr, const int32_t* col_sum,
                                    const uint8_t* residual, int64_t ldr, uint8_t* y, int64_t ldy);

// One column of the GEMM (a matrix-vector product, batch-1 fully connected layers):
// d[r] = sum over g < k4, q < 4 of A[g][r][q] * x[4 g + q] for the 8 rows of panel `a`; x holds
// 4 * k4 unsigned bytes.
using QGemvFn = void (*)(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d);

inline constexpr int64_t kQDwMaxTaps = 49;  // SIMD versions: bigger kernels run portably
using QDwAccumulateFn = void (*)(const QDwParams& p, const int16_t* x, const int32_t* w,
                                 int32_t* acc);

// Depthwise accumulation straight from 8-bit codes (AVX-512 VBMI + VNNI): `plane` is one
// channel's input, padded, in the unsigned domain (i8 codes + 128; the padding holds the zero
// code), rows `row` bytes apart and readable 64 bytes past the last one; w holds per window
// row `quads` int32s, each four s8 weights of consecutive columns (zero past the window):
//   acc[oy * out_w + ox] = sum over ky, kx of w[ky][kx] * plane[(oy * stride_h + ky) * row +
//                          ox * stride_w + kx] - correction,
// with correction = zero code * sum of the weights, so acc is the centred sum of QDwParams'
// kernels (padding contributes 0). Dilation 1, stride_w 1 or 2, windows up to 8 columns.
// PrepareQDwU8 fills the last two fields from the others: narrow planes (out_w <= 8) put
// several output rows in one 16-lane vector (a 7x7 plane: 2 rows per vector, 14 of 16 lanes
// busy instead of 7), and `index` holds each lane's byte quads within a 64-byte load.
inline constexpr int64_t kQDwU8MaxQuads = 2;
struct QDwU8Params {
  int64_t out_h = 0, out_w = 0;
  int64_t kernel_h = 3, quads = 1;
  int64_t stride_h = 1, stride_w = 1;
  int64_t row = 0;
  int64_t rows_per_vector = 1;
  // Byte 4j + k of quad q: the plane byte (relative to the vector's first output) lane j
  // multiplies by window column 4q + k.
  uint8_t index[kQDwU8MaxQuads][64] = {};
};
void PrepareQDwU8(QDwU8Params& p);
using QDwU8Fn = void (*)(const QDwU8Params& p, const uint8_t* plane, const int32_t* w,
                         int32_t correction, int32_t* acc);

// Depthwise convolution straight from 8-bit input planes to 8-bit output planes, the sums
// in registers (AVX-512 VNNI): window rows of up to 4 columns, dilation 1, no residual.
// Each output's window row is one byte quad of the input row, so one vpdpbusd takes a window
// row of 16 outputs: the quads come from plain unaligned loads, one per output phase (stride
// 1: 4 loads, output 4j + r in lane j of load r; stride 2: 2 loads, output 2j + r), masked so
// that bytes outside the input read the zero code. Sums start at offset - zero * sum(w) and
// end in QRowParams' 8-bit epilogue (no residual, no weight zero point).
//   stride 1 (stride_h and stride_w; out_w == in_w): the planes are one flat run, 64 outputs
//     per step across rows; masks[(step * kernel_h + ky) * 4 + r] the bytes load r of window
//     row ky reads inside the input.
//   stride_w 2 (any stride_h): per output row, 64 outputs per step (two output rows per step
//     where out_w <= 32); masks[(col_block) * 2 + r] per 32 columns, window rows outside the
//     input read the zero code whole.
// QConvCpu::Depthwise fills the masks (QDwDirectMasks).
struct QDwDirectParams {
  int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  int64_t kernel_h = 3;
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_top = 0, pad_left = 0;
  bool x_signed = false;  // i8 input codes, flipped to u8 on load
  int32_t zero_code = 0;  // the input zero point in the unsigned domain
  const uint64_t* masks = nullptr;
  bool out_signed = false;  // i8 output codes (else u8)
  int32_t out_zero = 0, qmin = 0, qmax = 255;
};
// The masks QDwDirectParams' form needs (a count of uint64s), and their values for `kernel_w`
// window columns.
int64_t QDwDirectMaskCount(const QDwDirectParams& p);
void QDwDirectMasks(const QDwDirectParams& p, int64_t kernel_w, uint64_t* masks);
// nc channels: input planes x + c * in_plane, output planes y + c * out_plane; per channel c
// kernel_h weight quads quads + c * kernel_h (four s8 centred weights of a window row, 0 past
// the window), the sums' start start[c] and the epilogue rows[c].
using QDwDirectFn = void (*)(const QDwDirectParams& p, const uint8_t* x, int64_t in_plane, int nc,
                             const int32_t* quads, const int32_t* start, const QRowParams* rows,
                             uint8_t* y, int64_t out_plane);

// Depthwise convolution of up to 16 channels at once with the channels in the lanes, where
// the plane-at-a-time path's per-channel costs (centring, row setup, the epilogue call) exceed
// the channel's arithmetic. One call does output rows [oy0, oy1) (a band) of nc <= 16
// channels: the input rows they read, from the planes of 8-bit codes x + c * in_plane (u8, or
// i8 when x_signed), are transposed into `tile`, pixel-major with the padding
// (QDwLanesTileRows(p, oy1 - oy0) rows of wp pixels, Int8Kernels::dw_lanes_pixel_bytes each,
// holding the 16 values code - x_zero in the kernel's own form: 16 int32 lanes for VNNI, 16
// int16 for AVX2; all-zero bytes are padding); every output pixel's 16 sums start at the
// lane's offset and take one multiply-add per tap (AVX2: per pair of taps); the per-lane
// epilogue (QRowParams' 8-bit one without residual or weight zero point) writes 16 bytes per
// output pixel into `otile`, which is transposed into the output planes y + c * out_plane
// (c < nc).
struct QDwLanesParams {
  int64_t in_h = 0, in_w = 0, out_w = 0;
  int64_t pad_top = 0, pad_left = 0;
  int64_t wp = 0;  // tile row, in pixels: in_w + pad_left + pad_right
  int64_t stride_h = 1, stride_w = 1;
  int64_t kernel_h = 1, dilation_h = 1;
  int64_t taps = 0;
  int64_t tap_offset[kQDwMaxTaps] = {};  // tap t of output (oy, ox) reads tile pixel
                                         // oy * stride_h * wp + ox * stride_w + tap_offset[t]
  bool x_signed = false;
  int32_t x_zero = 0;
  // The form of tables with dw_lanes_column_pairs (VNNI), where stride_w is 1 or 2,
  // dilation_w 1 and in_w even: the tile holds int16 values, lane c's dword of tile pixel m
  // the pair of tile columns (2m, 2m + 1), so one vpdpwssd takes two taps of a window row (3x3
  // windows: 6 instead of 9), and the tile is half the bytes. pad_left (even: the input's
  // pairs are tile pixels) and wp count tile columns, a tile pixel is a pair
  // (Int8Kernels::dw_lanes_pixel_bytes bytes), `taps` and tap_offset are pair taps, in tile
  // pixels. Output (oy, ox)'s window starts at tile column c = ox * stride_w + pair_shift of
  // tile row oy * stride_h: its pair taps start at pair c / 2 and take the weights of parity
  // c % 2 (w below).
  int64_t pair_shift = 0;
  // Where output pixel q of a band reads: its first tap's tile pixel, times 16 (int32 units of
  // the tile), for every q below the band's out_w * rows rounded up to 16; with column_pairs
  // at stride 1 each 16 in the order the VNNI kernel takes them, q + (i % 2) * 8 + i / 2 for
  // pixel q + i (QConvCpu::PrepareLanes fills it). The AVX2 kernel steps its own.
  const int32_t* pixel_offset = nullptr;
  bool column_pairs = false;
  bool out_signed = false;  // i8 output codes (else u8)
  int32_t out_zero = 0, qmin = 0, qmax = 255;
};
// Where output pixel i of each 16 goes in QDwLanesParams::pixel_offset and in the kernel's
// tile of outputs: i itself, or with column pairs at stride 1 (`split`, the outputs taken by
// parity) slot (i % 2) * 8 + i / 2, the even-indexed first.
inline int64_t QDwLanesSlot(bool split, int64_t i) { return split ? (i & 1) * 8 + i / 2 : i; }
// 16 channels' epilogue constants, lane c for the block's channel c (lanes past the layer's
// channels hold offset 0 and a valid requantization: computed, never stored), in the forms the
// SIMD epilogue loads: the 64-bit products of even and odd lanes, or (every shift >= 33, the
// usual case) their high halves on 16 int32 lanes (see the kernel). PrepareQDwLaneBlock
// fills them from per-channel (offset, Requant).
struct QDwLaneBlock {
  int32_t offset[16] = {};      // the bias (centred sums need no other term)
  int32_t multiplier[16] = {};  // even lanes read by the even products
  int64_t multiplier_odd[8] = {};
  int64_t round_even[8] = {}, round_odd[8] = {};  // 2^(shift - 1)
  int64_t shift_even[8] = {}, shift_odd[8] = {};
  int32_t round32[16] = {}, shift32[16] = {};  // 2^(shift - 33), shift - 32
  bool high = false;
};
void PrepareQDwLaneBlock(const int32_t (&offset)[16], const Requant (&requant)[16],
                         QDwLaneBlock& b);
// The tile rows a band of `out_rows` output rows reads. This and QDwLanesBandOf are out of line
// (ukernel_geometry.cc): a copy compiled with a per-ISA file's -m flags could be the one the
// linker keeps (scripts/check_isa_objects.sh).
int64_t QDwLanesTileRows(const QDwLanesParams& p, int64_t out_rows);
// Where the input lies in the tile of the band of output rows [oy0, oy1): its tile rows start
// at input row oy0 * stride_h - pad_top (negative in the top padding); input rows [iy0, iy1)
// fill tile rows [above, below), rows [0, above) lie above the input and [below, rows) below
// it (with pads larger than the window a band can be all padding: then iy0 == iy1, both
// clamped to the tile). A call zeroes those rows (they differ between bands); the caller
// zeroes the padding columns beside the input once.
struct QDwLanesBand {
  int64_t rows = 0, iy0 = 0, iy1 = 0, above = 0, below = 0;
};
QDwLanesBand QDwLanesBandOf(const QDwLanesParams& p, int64_t oy0, int64_t oy1);
// w: the block's weights [taps][16] int32, each the centred weight code in the low 16 bits and
// 0 in the high 16 (vpdpwssd's second product then adds 0); with column_pairs [2][taps][16],
// per parity a pair tap's two weights (0 for a column outside the window); or, for a table with
// dw_lanes_tap_pairs (AVX2), [(taps + 1) / 2][16]: taps 2q and 2q + 1's weights in the low and
// high 16 bits (0 past the last tap), lanes in the order channels 0-3, 8-11, 4-7, 12-15. The
// call zeroes the tile rows above and below the input; the caller zeroes the padding columns
// beside it once (they are padding in every band). `otile` holds 16 bytes per output pixel of
// the band, rounded up to 16 pixels.
using QDwLanesFn = void (*)(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc,
                            const int32_t* w, const QDwLaneBlock& b, uint8_t* y, int64_t out_plane,
                            int64_t oy0, int64_t oy1, void* tile, uint8_t* otile);

// Centres `rows` rows of n codes (u8, or i8 when is_signed) into int16 (code - zero), for the
// depthwise planes: row r reads src + r * src_stride and writes even + r * dst_stride (and
// odd + r * dst_stride); with `odd` null every code goes to even[i], otherwise codes 0, 2,
// 4, ... go to even[0, 1, 2, ...] and codes 1, 3, ... to odd[0, 1, ...] (stride-2 column
// phases). A whole channel per call: one call per row cost more than the row's work on
// 7- and 14-wide planes.
using QCentreFn = void (*)(const uint8_t* src, int64_t n, int64_t rows, int64_t src_stride,
                           bool is_signed, int32_t zero, int16_t* even, int16_t* odd,
                           int64_t dst_stride);

// QAdd of n elements of same-shaped 8-bit tensors (docs/quantization.md):
//   a' = Requantize((a - za) << 20, ra), b' = Requantize((b - zb) << 20, rb),
//   y = clamp(zy + Requantize(a' + b', ro), qmin, qmax)
// y may alias a or b. qmin/qmax inside the output type's range.
struct QAddParams {
  QType a_type = QType::kU8, b_type = QType::kU8, out_type = QType::kU8;
  int32_t a_zero = 0, b_zero = 0, out_zero = 0, qmin = 0, qmax = 255;
  Requant ra, rb, ro;
};
using QAddFn = void (*)(const QAddParams& p, const void* a, const void* b, void* y, int64_t n);

// Four planes of `rows` rows of n codes interleaved into rows of n byte quads (the GEMM's B
// columns): for row r, d[r * dst_stride + i] = (r0[o] | r1[o] << 8 | r2[o] << 16 | r3[o] <<
// 24) ^ flip with o = r * src_stride + i. Optional in a table (null: the portable version in
// qconv_gemm.cc). A channel quad's plane per call: one call per row cost more than the row's work
// on 7- and 14-wide planes.
using QInterleave4Fn = void (*)(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2,
                                const uint8_t* r3, int64_t n, int64_t rows, int64_t src_stride,
                                uint32_t flip, uint32_t* d, int64_t dst_stride);

// y[i] = table[x[i]] for n bytes (256-entry byte table): QLookup of 8-bit codes and QConcat's
// per-input requantization, whose output code is a function of the input code alone. y may
// alias x.
using QMapBytesFn = void (*)(const uint8_t* table, const uint8_t* x, uint8_t* y, int64_t n);

// QMul of a plane by one centred code (a per-channel operand broadcast over the plane: the
// squeeze-excite scaling of efficientnet-like models):
//   y[i] = clamp(out_zero + Requantize((a[i] - a_zero) * b, requant), qmin, qmax)
// with |b| <= 255 (8-bit codes), so the product fits int32. y may alias a.
struct QMulParams {
  QType a_type = QType::kU8, out_type = QType::kU8;
  int32_t a_zero = 0, out_zero = 0, qmin = 0, qmax = 255;
  Requant requant;
};
using QMulScalarFn = void (*)(const QMulParams& p, const uint8_t* a, int32_t b, uint8_t* y,
                              int64_t n);

// QuantizeLinear of n floats, per tensor, as the reference does it: x / scale in float,
// rounded half to even, plus the zero point, NaN to 0, saturated to u8/i8.
using QuantizeF32Fn = void (*)(const float* x, int64_t n, float scale, int32_t zero, QType out,
                               void* y);

// --- Per-ISA entry points (int8_<isa>.cc). ---
void QGemmUkernelScalar(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride, int32_t* d,
                        int64_t ldd, int mr, int nr, bool accumulate);
void QRequantRowScalar(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                       int64_t n);
void QCentreScalar(const uint8_t* src, int64_t n, int64_t rows, int64_t src_stride, bool is_signed,
                   int32_t zero, int16_t* even, int16_t* odd, int64_t dst_stride);
void QAddScalar(const QAddParams& p, const void* a, const void* b, void* y, int64_t n);
void QuantizeF32Scalar(const float* x, int64_t n, float scale, int32_t zero, QType out, void* y);
void QRequantRowsScalar(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                        const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n);
void QGemvScalar(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d);
void QMapBytesScalar(const uint8_t* table, const uint8_t* x, uint8_t* y, int64_t n);
void QMulScalarScalar(const QMulParams& p, const uint8_t* a, int32_t b, uint8_t* y, int64_t n);
void QDwAccumulateScalar(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc);
#if defined(__x86_64__) || defined(__i386__)
void QGemmUkernelAvx2(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride, int32_t* d,
                      int64_t ldd, int mr, int nr, bool accumulate);
void QDwAccumulateAvx2(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc);
void QGemmTapsAvx2(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                   const uint8_t* b, int64_t b_stride, int32_t* d, int64_t ldd, int mr, int nr);
void QCentreAvx2(const uint8_t* src, int64_t n, int64_t rows, int64_t src_stride, bool is_signed,
                 int32_t zero, int16_t* even, int16_t* odd, int64_t dst_stride);
void QGemmRequantAvx2(int64_t k4, const int8_t* a, int64_t panels, const uint8_t* b,
                      int64_t b_stride, const QRowParams* rows, int mr, int nr,
                      const int32_t* col_sum, const uint8_t* residual, int64_t ldr, uint8_t* y,
                      int64_t ldy);
void QRequantRowAvx2(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                     int64_t n);
void QRequantRowsAvx2(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                      const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n);
void QuantizeF32Avx2(const float* x, int64_t n, float scale, int32_t zero, QType out, void* y);
void QGemvAvx2(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d);
void QAddAvx2(const QAddParams& p, const void* a, const void* b, void* y, int64_t n);
void QInterleave4Avx2(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2, const uint8_t* r3,
                      int64_t n, int64_t rows, int64_t src_stride, uint32_t flip, uint32_t* d,
                      int64_t dst_stride);
void QDwLanesAvx2(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc,
                  const int32_t* w, const QDwLaneBlock& b, uint8_t* y, int64_t out_plane,
                  int64_t oy0, int64_t oy1, void* tile, uint8_t* otile);
void QGemmUkernelAvx512Vnni(int64_t k4, const int8_t* a, const uint8_t* b, int64_t b_stride,
                            int32_t* d, int64_t ldd, int mr, int nr, bool accumulate);
void QRequantRowAvx512Vnni(const QRowParams& p, const int32_t* d, const int32_t* col_sum, void* y,
                           int64_t n);
void QDwDirectAvx512Vnni(const QDwDirectParams& p, const uint8_t* x, int64_t in_plane, int nc,
                         const int32_t* quads, const int32_t* start, const QRowParams* rows,
                         uint8_t* y, int64_t out_plane);
void QMapBytesAvx512Vbmi(const uint8_t* table, const uint8_t* x, uint8_t* y, int64_t n);
void QMulScalarAvx512Vnni(const QMulParams& p, const uint8_t* a, int32_t b, uint8_t* y, int64_t n);
void QDwU8Avx512Vbmi(const QDwU8Params& p, const uint8_t* plane, const int32_t* w,
                     int32_t correction, int32_t* acc);
void QInterleave4Avx512Vnni(const uint8_t* r0, const uint8_t* r1, const uint8_t* r2,
                            const uint8_t* r3, int64_t n, int64_t rows, int64_t src_stride,
                            uint32_t flip, uint32_t* d, int64_t dst_stride);
void QCentreAvx512Vnni(const uint8_t* src, int64_t n, int64_t rows, int64_t src_stride,
                       bool is_signed, int32_t zero, int16_t* even, int16_t* odd,
                       int64_t dst_stride);
void QAddAvx512Vnni(const QAddParams& p, const void* a, const void* b, void* y, int64_t n);
void QuantizeF32Avx512Vnni(const float* x, int64_t n, float scale, int32_t zero, QType out,
                           void* y);
void QRequantRowsAvx512Vnni(const QRowParams* rows, int mr, const int32_t* d, int64_t ldd,
                            const int32_t* col_sum, uint8_t* y, int64_t ldy, int64_t n);
void QGemmRequantAvx512Vnni(int64_t k4, const int8_t* a, int64_t panels, const uint8_t* b,
                            int64_t b_stride, const QRowParams* rows, int mr, int nr,
                            const int32_t* col_sum, const uint8_t* residual, int64_t ldr,
                            uint8_t* y, int64_t ldy);
void QGemvAvx512Vnni(int64_t k4, const int8_t* a, const uint8_t* x, int32_t* d);
void QGemmTapsAvx512Vnni(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                         const uint8_t* b, int64_t b_stride, int32_t* d, int64_t ldd, int mr,
                         int nr);
void QGemmTapsRequantAvx512Vnni(int64_t c4, int64_t taps, const int64_t* tap_off, const int8_t* a,
                                const uint8_t* b, int64_t b_stride, const QRowParams* rows, int mr,
                                int nr, const int32_t* col_sum, const uint8_t* residual,
                                int64_t ldr, uint8_t* y, int64_t ldy);
void QDwAccumulateAvx512Vnni(const QDwParams& p, const int16_t* x, const int32_t* w, int32_t* acc);
void QDwLanesAvx512Vnni(const QDwLanesParams& p, const uint8_t* x, int64_t in_plane, int nc,
                        const int32_t* w, const QDwLaneBlock& b, uint8_t* y, int64_t out_plane,
                        int64_t oy0, int64_t oy1, void* tile, uint8_t* otile);
#endif

}  // namespace kiln::cpu
