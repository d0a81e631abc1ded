// The DSP target's QConv (2-D; groups and depthwise included): tiles of output channels x
// output rows. Declared here so that the chain planner (dsp_conv_chain.cc), which fuses
// convolutions whose intermediate tiles stay in the scratchpad, can reuse each member's
// geometry and compute.
#pragma once

#include <utility>
#include <vector>

#include "backends/dsp/kernels/dsp_op.h"
#include "kernels/reference/quantized_util.h"

namespace kiln {

class DspConv : public DspOp {
 public:
  // Compute-command layout: tile = {n, oc0, oc1, oh0, oh1, -}; buf = {x slab, w, bias,
  // requant, residual, out, acc, residual requant}. A slab holds input rows ih0..ih1 of the
  // tile's input channels, channel after channel ([channels][rows][w]); the output tile is
  // [to][th][ow]: so a convolution computing all its channels for rows R writes exactly the
  // slab a next convolution reading rows R expects.
  enum Buf { kX = 0, kW, kBias, kRq, kRes, kOut, kAcc, kResRq };

  Status Init(const Graph& graph, const Node& node);
  // Plans and computes as if the weights were in kDspK4 (its weight packing, PackDspWeights,
  // compares both before it packs); false when the node is not DspK4Eligible.
  bool UseQuadLayout(const Graph& graph, const Node& node);

  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override;
  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override;
  void Compute(const DspCommand& c, uint8_t* scratch) const override;
  DspCounters Work(const DspCommand& c) const override;

  // Geometry the chain planner reads.
  int64_t batch() const { return n_; }
  int64_t in_channels() const { return c_; }
  int64_t in_height() const { return h_; }
  int64_t in_width() const { return w_; }
  int64_t out_channels() const { return m_; }
  int64_t out_height() const { return oh_; }
  int64_t out_width() const { return ow_; }
  DType out_type() const { return out_type_; }
  bool has_bias() const { return has_bias_; }
  bool has_residual() const { return residual_; }
  uint64_t OutBytes() const { return out_type_ == DType::kI32 ? 4 : 1; }
  uint64_t WeightBytes() const { return U(m_) * WeightRowBytes(); }
  // Bytes of one output channel's weights (plain, or kDspK4 with C padded to 4).
  uint64_t WeightRowBytes() const { return quad_ ? U(kh_ * kw_ * cq_ * 4) : U(icpg_ * kh_ * kw_); }
  // The accumulator region of a tile of `th` output rows: one int32 plane, and with kDspK4
  // weights the tile's input interleaved by 4 channels (see ComputeQuads).
  uint64_t AccRegionBytes(int64_t th) const;
  // Bytes of the requantization rows (output / residual) for `to` output channels; 0 if none.
  uint64_t RequantBytes(int64_t to) const {
    return out_type_ == DType::kI32 ? 0 : RqBytes(rq_rows_, to);
  }
  uint64_t ResidualRequantBytes(int64_t to) const { return residual_ ? RqBytes(rrq_rows_, to) : 0; }
  // Input rows [lo, hi) the output rows [oh0, oh1) read (clamped to the input).
  std::pair<int64_t, int64_t> InputRows(int64_t oh0, int64_t oh1) const;

 private:
  static int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
  static uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }
  static uint64_t RqBytes(int64_t rows, int64_t to) { return U(rows == 1 ? 1 : to) * 8; }

  // kDspK4 weights: the tile through 4-channel dot products (DspRowKernels::dot_q4).
  void ComputeQuads(const DspCommand& c, uint8_t* s, const uint8_t* x, int64_t slab_rows,
                    int32_t* acc) const;
  int64_t QuadRows(int64_t th) const;  // input rows of the interleaved copy
  int64_t QuadCols() const;            // its columns: every 16-output group's loads in range
  // Residual, requantization and the store of output channel oc (tile row t).
  void Finish(const DspCommand& c, uint8_t* s, int64_t t, int32_t* acc, int64_t plane) const;
  std::pair<int64_t, int64_t> InputChannels(int64_t oc0, int64_t oc1) const;
  // Largest input-channel count of any tile of `to` output channels.
  int64_t MaxInputChannels(int64_t to) const;
  uint64_t WorkingSet(int64_t to, int64_t th, bool double_buffer) const;
  // DMA bytes of the whole node for tiles of to x th (weights once per channel tile).
  uint64_t Traffic(int64_t to, int64_t th) const;
  DspProgram Emit(uint32_t scratch_bytes, int64_t to, int64_t th, bool double_buffer) const;

  int64_t group_ = 1, n_ = 0, c_ = 0, h_ = 0, w_ = 0, m_ = 0, kh_ = 0, kw_ = 0, oh_ = 0, ow_ = 0,
          sh_ = 1, sw_ = 1, dh_ = 1, dw_ = 1, ph_ = 0, pw_ = 0, icpg_ = 0, ocpg_ = 0, rq_rows_ = 1,
          rrq_rows_ = 1;
  DType x_type_ = DType::kU8, w_type_ = DType::kI8, out_type_ = DType::kU8, r_type_ = DType::kU8;
  int32_t x_zero_ = 0, out_zero_ = 0, r_zero_ = 0;
  std::vector<int32_t> w_zero_;
  QuantClamp clamp_;
  bool has_bias_ = false, residual_ = false;
  bool quad_ = false;  // weights in kDspK4
  int64_t cq_ = 0;     // input channels / 4, rounded up
  uint8_t out_slot_ = 0;
};

// Whether `node`'s weights may be stored in kDspK4 for the DSP (group 1, i8 weights with zero
// points 0, horizontal stride 1 or 2): PackDspWeights packs exactly those.
bool DspK4Eligible(const Graph& graph, const Node& node);

}  // namespace kiln
