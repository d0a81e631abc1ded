// The int8 convolution drivers (ISA-independent; the micro-kernels come from an Int8Kernels
// table): a GEMM over the compiler's kI8O8K4 weights for ordinary and grouped convolutions,
// and a direct depthwise one over plain weights. Both are bit-exact with the reference QConv
// (kernels/reference/qconv.cc, docs/quantization.md). No IR types: QConvSpec is filled by the
// Kernel adapter (qconv_kernel.cc) or by hand.
#pragma once

#include <cstdint>
#include <vector>

#include "backends/cpu/kernels/conv_geometry.h"
#include "backends/cpu/tables/int8_table.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {

// Everything a QConv needs besides its tensors, in the codes' own domains.
struct QConvSpec {
  Conv2dGeometry g;
  QType x_type = QType::kU8;
  int32_t x_zero = 0;
  bool w_unsigned = false;       // u8 weight codes (stored XOR 0x80 in kI8O8K4)
  std::vector<int32_t> w_zero;   // per output channel, in the codes' domain
  std::vector<int32_t> bias;     // per output channel (zeros when absent)
  std::vector<Requant> requant;  // per output channel (8-bit outputs)
  QType out_type = QType::kU8;
  int32_t out_zero = 0, qmin = 0, qmax = 255;
  bool residual = false;
  QType residual_type = QType::kU8;
  int32_t residual_zero = 0;
  std::vector<Requant> residual_requant;  // per output channel, with a residual
};

// Whether the GEMM driver takes this geometry (output-channel panels of 8 must not straddle
// groups) and whether the depthwise one does.
bool QConvGemmApplies(const Conv2dGeometry& g);
bool QConvDepthwiseApplies(const Conv2dGeometry& g);

class QConvCpu {
 public:
  QConvCpu() = default;
  // GEMM over kI8O8K4 weights `packed` (read now for the per-channel weight sums, and again at
  // every Run: the caller passes the same bytes). Depthwise reads plain weight codes.
  static QConvCpu Gemm(QConvSpec spec, const int8_t* packed, const Int8Kernels& k, int threads);
  static QConvCpu Depthwise(QConvSpec spec, const void* plain_w, bool w_signed,
                            const Int8Kernels& k, int threads);

  size_t ScratchBytes() const;
  // x: [N, C, H, W] codes; w: the packed weights (GEMM; ignored by depthwise); residual like
  // y or null; y: [N, M, OH, OW]. scratch: ScratchBytes() bytes.
  void Run(const void* x, const int8_t* w, const void* residual, void* y, void* scratch,
           ThreadPool* pool) const;

 private:
  void RunGemm(const uint8_t* x, const int8_t* w, const void* residual, void* y, uint8_t* scratch,
               ThreadPool* pool) const;
  void RunDepthwise(const uint8_t* x, const void* residual, void* y, uint8_t* scratch,
                    ThreadPool* pool) const;
  // Bytes x4 of batch image n, group g: [c4][Hp][Wp][4] with padding, padded rows [yy0, yy1)
  // (the slack past the plane with the last ones).
  void Interleave(const uint8_t* x, int64_t n, int64_t g, int64_t c4, uint8_t* x4, int64_t yy0,
                  int64_t yy1) const;
  // Pointwise planes (no padding: the padded plane is the plane): columns [q0, q1) of quad c4
  // of group 0 (the slack past the plane zeroed with the last ones).
  void InterleaveColumns(const uint8_t* x, int64_t n, int64_t c4, uint8_t* x4, int64_t q0,
                         int64_t q1) const;
  // The four channel planes of quad c4 (a zero byte for channels past the group's), their
  // padding quad and the i8 flip.
  struct QuadPlanes {
    const uint8_t* rows[4] = {};
    bool real[4] = {};
    uint32_t pad = 0, flip = 0;
  };
  QuadPlanes QuadOf(const uint8_t* x, int64_t n, int64_t g, int64_t c4) const;
  void SplitPhaseRow(const uint32_t* row, int64_t yy, uint32_t pad, uint32_t* dst) const;
  void GemmItem(int64_t chunk, int64_t tile, int64_t grp, const uint8_t* x4,
                const int32_t* plane_sum, const int8_t* w, const void* residual, void* y, int64_t n,
                uint8_t* panel) const;
  QRowParams RowFor(int64_t oc, const void* residual) const;
  void MakeRows();
  void PrepareLanes();

  QConvSpec s_;
  const Int8Kernels* k_ = nullptr;
  bool depthwise_ = false;
  int threads_ = 1;
  // GEMM geometry.
  int nr_ = 8;
  int64_t cpg_ = 0, ocpg_ = 0, taps_ = 1, c4_ = 0, k4_ = 0;
  int64_t hp_ = 0, wp_ = 0, plane_ = 0;  // padded input plane (4-byte units per channel quad)
  bool gemv_ = false;                    // one-pixel images, 1x1, one group: matrix-vector products
  bool direct_ = false;  // B read in place (grid width gw_): stride 1, or stride 2 on phases
  // Stride 2 (dilation 1): each channel quad's padded plane is stored as its four phase planes
  // (even/odd rows x even/odd columns, hph_ x gw_ each, phase_plane_ apart), so every tap is
  // one offset from an output's grid position, as for stride 1.
  bool phases_ = false;
  int64_t gw_ = 0, hph_ = 0, phase_plane_ = 0;
  // A plane of zero bytes: the missing channels of a partial last quad (interleave4).
  std::vector<uint8_t> zero_row_;
  int64_t grid_ = 0, tiles_ = 0, oc_chunks_ = 1, panels_per_group_ = 0;
  int32_t x_stored_zero_ = 0;
  bool any_w_zero_ = false;
  bool columns_per_share_ = false;  // RunGemm: each share interleaves its tiles' columns
  std::vector<int32_t> offset_, w_stored_zero_;
  std::vector<QRowParams> rows_;     // per output channel, residual unset
  std::vector<int64_t> tap_offset_;  // per tap, in 4-byte units of the padded plane
  std::vector<int64_t> tap_bytes_;   // the same in bytes
  // Depthwise geometry.
  std::vector<int32_t> dw_w_;  // centred weights [C][taps]
  QDwParams dw_;
  int64_t dw_phase_w_ = 0, dw_hp_ = 0;
  // The 8-bit path (Int8Kernels::dw_u8), when the table has it and the layer fits it: padded
  // planes of dw_u8_.row bytes per row in the unsigned domain, weight quads [C][kh][quads],
  // per-channel weight sums (for the zero-code correction; the quads and sums serve the
  // direct path too).
  bool dw_use_u8_ = false;
  QDwU8Params dw_u8_;
  std::vector<int32_t> dw_quads_, dw_wsum_;
  int64_t dw_plane_bytes_ = 0;  // per share: the int16 phase planes or the 8-bit plane
  // Channels the 8-bit path accumulates before one multi-row epilogue call: up to kQGemmMr for
  // small planes without a residual (7x7 and 14x14: the per-channel epilogue call and row
  // setup cost as much as the channel's arithmetic), else 1.
  int64_t dw_group_ = 1;
  void RunDepthwiseU8(const uint8_t* x, const void* residual, void* y, uint8_t* scratch,
                      ThreadPool* pool) const;
  // Depthwise without residual, 8-bit output, where the table has dw_lanes: 16 channels per
  // call with the channels in the lanes, whole planes or bands of dw_band_rows_ output rows.
  // Weights [blocks][taps][16] in dw_lanes' form, epilogue constants per block of 16.
  bool dw_use_lanes_ = false;
  QDwLanesParams dw_lanes_;
  std::vector<int32_t> dw_lane_w_;
  int64_t dw_lane_rows_ = 0;  // rows of 16 weights per block: taps, or pairs of taps
  std::vector<QDwLaneBlock> dw_lane_blocks_;
  int64_t dw_band_rows_ = 1;  // output rows per dw_lanes call
  int64_t dw_tile_bytes_ = 0, dw_otile_bytes_ = 0;
  int64_t dw_column_bytes_ = 0;  // tile bytes per column (QDwLanesParams::column_pairs: half)
  std::vector<int32_t> dw_pixel_offset_;  // QDwLanesParams::pixel_offset
  void RunDepthwiseLanes(const uint8_t* x, void* y, uint8_t* scratch, ThreadPool* pool) const;
  void ZeroLanePadding(uint8_t* tile) const;
  // Depthwise without residual, 8-bit output, where the table has dw_direct and the layer fits
  // it (QDwDirectParams; weight quads dw_quads_ with one quad per window row): before the
  // other paths. Per channel the sums' start, bias - zero code * weight sum.
  bool dw_use_direct_ = false;
  QDwDirectParams dw_direct_;
  std::vector<uint64_t> dw_direct_masks_;
  std::vector<int32_t> dw_direct_start_;
  void PrepareDirect();
  void RunDepthwiseDirect(const uint8_t* x, void* y, ThreadPool* pool) const;
};

}  // namespace kiln::cpu
