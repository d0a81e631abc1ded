// The DSP target's QConv (2-D; groups and depthwise included): tiles of output channels x
// output rows. A tile's input slab (the rows its windows read, of the channels its groups
// read), weights, bias, requantization rows, residual and output all live in the scratchpad;
// weights stay resident while the row tiles of one channel tile run. Arithmetic: the
// reference QConv's (kernels/reference/qconv.cc), padding taps skipped.
#include "backends/dsp/kernels/dsp_conv.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "ir/ops/window_geometry.h"
#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_engine.h"
#include "backends/dsp/kernels/dsp_ops.h"
#include "backends/dsp/kernels/dsp_row.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln {
namespace {
using nn_ref::ValidRange;
}  // namespace

Status DspConv::Init(const Graph& graph, const Node& node) {
  const Value& xv = graph.value(node.inputs[0]);
  const Value& wv = graph.value(node.inputs[1]);
  if (xv.shape.size() != 4 || wv.shape.size() != 4) return Unsupported("only 2-D QConv");
  quad_ = wv.layout == Layout::kDspK4;
  if (!wv.is_constant() || (wv.layout != Layout::kPlain && !quad_)) {
    return Unsupported("QConv weight is not a constant in a layout the DSP reads");
  }
  if (!IsDspCode(xv.dtype) || !IsDspCode(wv.dtype)) return Unsupported("QConv operand dtype");
  const Value& yv = graph.value(node.outputs[0]);
  out_type_ = yv.dtype;
  if (!IsDspCode(out_type_) && out_type_ != DType::kI32) return Unsupported("QConv output dtype");
  group_ = node.attrs.GetInt("group", 1);
  n_ = xv.shape[0], c_ = xv.shape[1], h_ = xv.shape[2], w_ = xv.shape[3];
  m_ = wv.shape[0], kh_ = wv.shape[2], kw_ = wv.shape[3];
  if (group_ <= 0 || c_ % group_ || m_ % group_ || wv.shape[1] * group_ != c_) {
    return InvalidArgument("QConv X and W do not fit the group");
  }
  icpg_ = c_ / group_;
  ocpg_ = m_ / group_;
  KILN_ASSIGN_OR_RETURN(WindowGeometry g, ResolveWindow(node.attrs, {h_, w_}, {kh_, kw_}, false));
  oh_ = g.output[0], ow_ = g.output[1];
  sh_ = g.strides[0], sw_ = g.strides[1];
  dh_ = g.dilations[0], dw_ = g.dilations[1];
  ph_ = g.pads_begin[0], pw_ = g.pads_begin[1];
  if (yv.shape != Shape{n_, m_, oh_, ow_}) return InvalidArgument("QConv output shape");
  x_type_ = xv.dtype;
  x_zero_ = ZeroPointOf(xv);
  w_type_ = wv.dtype;
  w_zero_ = ZeroPointsOf(wv, m_);
  out_zero_ = out_type_ == DType::kI32 ? 0 : ZeroPointOf(yv);
  clamp_ = ReadClamp(node.attrs, out_type_);
  has_bias_ = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
  residual_ = node.inputs.size() > 3 && node.inputs[3] != kNoValue;
  if (has_bias_ && !graph.value(node.inputs[2]).is_constant()) return Unsupported("QConv bias");
  if (out_type_ != DType::kI32) {
    if (node.inputs.size() <= 4 || node.inputs[4] == kNoValue) {
      return InvalidArgument("QConv with an 8-bit output needs its requant input");
    }
    const Value& rq = graph.value(node.inputs[4]);
    KILN_RETURN_IF_ERROR(ReadRequant(rq, m_).status());
    rq_rows_ = rq.shape[0];
  }
  if (residual_) {
    const Value& rv = graph.value(node.inputs[3]);
    if (rv.shape != yv.shape || !IsDspCode(rv.dtype) || node.inputs.size() <= 5 ||
        node.inputs[5] == kNoValue) {
      return Unsupported("QConv residual shape or dtype");
    }
    r_type_ = rv.dtype;
    r_zero_ = ZeroPointOf(rv);
    const Value& rrq = graph.value(node.inputs[5]);
    KILN_RETURN_IF_ERROR(ReadRequant(rrq, m_).status());
    rrq_rows_ = rrq.shape[0];
  }
  out_slot_ = static_cast<uint8_t>(node.inputs.size());
  if (quad_ && !UseQuadLayout(graph, node)) {
    return Unsupported(
        "QConv weights in the DSP's quad layout need group 1, i8 weights with zero points 0 and "
        "a horizontal stride of 1 or 2");
  }
  return Status::Ok();
}

Expected<DspProgram> DspConv::Plan(uint32_t scratch_bytes) const {
  // For single and double buffers: candidate channel tiles (halving) x row tiles (every
  // height), the fitting pair with the least DMA traffic, then the fewest tiles. Of the two,
  // the program with fewer estimated cycles (double buffering overlaps DMA with compute but
  // needs smaller tiles, hence more traffic).
  std::optional<DspProgram> best;
  int64_t best_cycles = INT64_MAX;
  for (bool db : {false, true}) {
    int64_t best_to = 0, best_th = 0;
    uint64_t best_bytes = UINT64_MAX, best_tiles = UINT64_MAX;
    for (int64_t to = m_;; to = (to + 1) / 2) {
      for (int64_t th = oh_; th >= 1; --th) {
        if (WorkingSet(to, th, db) > scratch_bytes) continue;
        const uint64_t tiles = static_cast<uint64_t>(CeilDiv(m_, to) * CeilDiv(oh_, th));
        const uint64_t bytes = Traffic(to, th);
        if (bytes < best_bytes || (bytes == best_bytes && tiles < best_tiles)) {
          best_to = to, best_th = th, best_bytes = bytes, best_tiles = tiles;
        }
        break;  // smaller row tiles of this channel tile only add traffic
      }
      if (to == 1) break;
    }
    if (best_to == 0) continue;
    if (db && best_tiles < 2) continue;  // nothing to overlap
    DspProgram program = Emit(scratch_bytes, best_to, best_th, db);
    const int64_t cycles = DspProgramCycles(program, *this, DspCostModel{});
    if (cycles < best_cycles) best_cycles = cycles, best = std::move(program);
  }
  if (!best) {
    return Unsupported("no QConv tile fits a " + std::to_string(scratch_bytes) +
                       "-byte scratchpad");
  }
  return std::move(*best);
}

Status DspConv::Regions(const DspCommand& c, std::vector<DspRegion>* out) const {
  const int64_t n = c.tile[0], oc0 = c.tile[1], oc1 = c.tile[2], oh0 = c.tile[3], oh1 = c.tile[4];
  if (n < 0 || n >= n_ || oc0 < 0 || oc0 >= oc1 || oc1 > m_ || oh0 < 0 || oh0 >= oh1 || oh1 > oh_) {
    return InvalidArgument("QConv compute tile outside the output");
  }
  const int64_t to = oc1 - oc0, th = oh1 - oh0;
  const auto [ic0, ic1] = InputChannels(oc0, oc1);
  const auto [ih0, ih1] = InputRows(oh0, oh1);
  out->push_back({c.buf[kX], U(ic1 - ic0) * U(ih1 - ih0) * U(w_), false});
  out->push_back({c.buf[kW], U(to) * WeightRowBytes(), false});
  if (has_bias_) out->push_back({c.buf[kBias], U(to) * 4, false});
  if (out_type_ != DType::kI32) out->push_back({c.buf[kRq], RqBytes(rq_rows_, to), false});
  if (residual_) {
    out->push_back({c.buf[kRes], U(to * th * ow_), false});
    out->push_back({c.buf[kResRq], RqBytes(rrq_rows_, to), false});
  }
  out->push_back({c.buf[kAcc], AccRegionBytes(th), true});
  out->push_back({c.buf[kOut], U(to * th * ow_) * OutBytes(), true});
  return Status::Ok();
}

void DspConv::Compute(const DspCommand& c, uint8_t* s) const {
  const int64_t n = c.tile[0], oc0 = c.tile[1], oc1 = c.tile[2], oh0 = c.tile[3], oh1 = c.tile[4];
  (void)n;
  const int64_t th = oh1 - oh0;
  const auto [ic0, ic1] = InputChannels(oc0, oc1);
  const auto [ih0, ih1] = InputRows(oh0, oh1);
  const int64_t slab_rows = ih1 - ih0;
  const uint8_t* x = s + c.buf[kX];
  const uint8_t* w = s + c.buf[kW];
  auto* acc = reinterpret_cast<int32_t*>(s + c.buf[kAcc]);
  const int64_t plane = th * ow_;
  const int64_t ksize = kh_ * kw_;
  if (quad_) {
    ComputeQuads(c, s, x, slab_rows, acc);
    return;
  }
  for (int64_t oc = oc0; oc < oc1; ++oc) {
    const int64_t t = oc - oc0;
    int32_t bias = 0;
    if (has_bias_) std::memcpy(&bias, s + c.buf[kBias] + t * 4, 4);
    std::fill(acc, acc + plane, bias);
    const int64_t g = oc / ocpg_;
    const int32_t zw = w_zero_[static_cast<size_t>(oc)];
    for (int64_t icg = 0; icg < icpg_; ++icg) {
      const int64_t ic = g * icpg_ + icg;
      const uint8_t* xp = x + (ic - ic0) * slab_rows * w_;
      const uint8_t* wk = w + (t * icpg_ + icg) * ksize;
      for (int64_t kh = 0; kh < kh_; ++kh) {
        const int64_t off_h = kh * dh_ - ph_;
        int64_t h0, h1;
        ValidRange(off_h, sh_, h_, oh_, &h0, &h1);
        h0 = std::max(h0, oh0), h1 = std::min(h1, oh1);
        for (int64_t kw = 0; kw < kw_; ++kw) {
          const int64_t off_w = kw * dw_ - pw_;
          int64_t w0, w1;
          ValidRange(off_w, sw_, w_, ow_, &w0, &w1);
          const int32_t wv = LoadQuantized(wk, w_type_, kh * kw_ + kw) - zw;
          if (wv == 0) continue;
          if (h1 <= h0 || w1 <= w0) continue;
          const uint8_t* x0 = xp + (h0 * sh_ + off_h - ih0) * w_;
          int32_t* a0 = acc + (h0 - oh0) * ow_;
          // Rows h0..h1 of columns w0..w1: one call of the SIMD row kernel.
          const DspRowKernels& k = BestDspRowKernels();
          const uint8_t* xs = x0 + w0 * sw_ + off_w;
          if (x_type_ == DType::kU8) {
            k.mac_u8(xs, sh_ * w_, a0 + w0, ow_, h1 - h0, w1 - w0, sw_, wv, x_zero_);
          } else {
            k.mac_i8(reinterpret_cast<const int8_t*>(xs), sh_ * w_, a0 + w0, ow_, h1 - h0, w1 - w0,
                     sw_, wv, x_zero_);
          }
        }
      }
    }
    Finish(c, s, t, acc, plane);
  }
}

DspCounters DspConv::Work(const DspCommand& c) const {
  DspCounters k;
  k.macs = (c.tile[2] - c.tile[1]) * (c.tile[4] - c.tile[3]) * ow_ * icpg_ * kh_ * kw_;
  return k;
}

void DspConv::Finish(const DspCommand& c, uint8_t* s, int64_t t, int32_t* acc,
                     int64_t plane) const {
  if (residual_) {
    Requant rr;
    std::memcpy(&rr, s + c.buf[kResRq] + (rrq_rows_ == 1 ? 0 : t) * 8, 8);
    rr = ClampToValidRequant(rr);
    const uint8_t* r = s + c.buf[kRes] + t * plane;
    for (int64_t i = 0; i < plane; ++i) {
      acc[i] = SaturatingAdd(acc[i], Requantize(LoadQuantized(r, r_type_, i) - r_zero_, rr));
    }
  }
  uint8_t* y = s + c.buf[kOut] + t * plane * static_cast<int64_t>(OutBytes());
  if (out_type_ == DType::kI32) {
    auto* yp = reinterpret_cast<int32_t*>(y);
    for (int64_t i = 0; i < plane; ++i) yp[i] = std::clamp(acc[i], clamp_.lo, clamp_.hi);
    return;
  }
  Requant rq;
  std::memcpy(&rq, s + c.buf[kRq] + (rq_rows_ == 1 ? 0 : t) * 8, 8);
  rq = ClampToValidRequant(rq);
  for (int64_t i = 0; i < plane; ++i) {
    StoreQuantized(y, out_type_, i,
                   RequantizeToOutput(acc[i], rq, out_zero_, clamp_.lo, clamp_.hi));
  }
}

std::pair<int64_t, int64_t> DspConv::InputChannels(int64_t oc0, int64_t oc1) const {
  if (group_ == 1) return {0, c_};
  return {oc0 / ocpg_ * icpg_, ((oc1 - 1) / ocpg_ + 1) * icpg_};
}
std::pair<int64_t, int64_t> DspConv::InputRows(int64_t oh0, int64_t oh1) const {
  const int64_t lo = std::max<int64_t>(0, oh0 * sh_ - ph_);
  const int64_t hi = std::min<int64_t>(h_, (oh1 - 1) * sh_ - ph_ + (kh_ - 1) * dh_ + 1);
  return {std::min(lo, hi), hi};
}
int64_t DspConv::MaxInputChannels(int64_t to) const {
  if (group_ == 1) return c_;
  return std::min(c_, (CeilDiv(to, ocpg_) + 1) * icpg_);
}
uint64_t DspConv::WorkingSet(int64_t to, int64_t th, bool double_buffer) const {
  const int64_t rows = std::min(h_, (th - 1) * sh_ + (kh_ - 1) * dh_ + 1);
  const uint64_t sets = double_buffer ? 2 : 1;  // of the streamed slab, output and residual
  uint64_t b = sets * DspAlign(U(MaxInputChannels(to) * rows * w_)) +
               DspAlign(U(to) * WeightRowBytes()) + DspAlign(U(to) * 4) +
               DspAlign(RqBytes(rq_rows_, to)) + DspAlign(AccRegionBytes(th)) +
               sets * DspAlign(U(to * th * ow_) * OutBytes());
  if (residual_) b += sets * DspAlign(U(to * th * ow_)) + DspAlign(RqBytes(rrq_rows_, to));
  return b;
}
uint64_t DspConv::Traffic(int64_t to, int64_t th) const {
  uint64_t bytes = WeightBytes() + U(n_ * m_ * oh_ * ow_) * OutBytes();
  if (residual_) bytes += U(n_ * m_ * oh_ * ow_);
  for (int64_t oc0 = 0; oc0 < m_; oc0 += to) {
    const auto [ic0, ic1] = InputChannels(oc0, std::min(m_, oc0 + to));
    for (int64_t oh0 = 0; oh0 < oh_; oh0 += th) {
      const auto [ih0, ih1] = InputRows(oh0, std::min(oh_, oh0 + th));
      bytes += U(n_ * (ic1 - ic0) * (ih1 - ih0) * w_);
    }
  }
  return bytes;
}

DspProgram DspConv::Emit(uint32_t scratch_bytes, int64_t to, int64_t th, bool double_buffer) const {
  DspProgramBuilder b(scratch_bytes);
  // Fixed scratchpad map for every tile (sized for the largest); double buffering gives the
  // streamed slab, output and residual two sets, tile t using set t % 2.
  const int64_t rows = std::min(h_, (th - 1) * sh_ + (kh_ - 1) * dh_ + 1);
  uint32_t off = 0;
  auto take = [&](uint64_t bytes) {
    const uint32_t at = off;
    off += static_cast<uint32_t>(DspAlign(bytes));
    return at;
  };
  const int sets = double_buffer ? 2 : 1;
  uint32_t sx[2] = {0, 0}, sout[2] = {0, 0}, sres[2] = {0, 0};
  for (int p = 0; p < sets; ++p) sx[p] = take(U(MaxInputChannels(to) * rows * w_));
  const uint32_t sw = take(U(to) * WeightRowBytes());
  const uint32_t sb = take(U(to) * 4);
  const uint32_t srq = take(RqBytes(rq_rows_, to));
  const uint32_t sacc = take(AccRegionBytes(th));
  for (int p = 0; p < sets; ++p) sout[p] = take(U(to * th * ow_) * OutBytes());
  for (int p = 0; p < sets && residual_; ++p) sres[p] = take(U(to * th * ow_));
  const uint32_t srrq = residual_ ? take(RqBytes(rrq_rows_, to)) : 0;
  const uint64_t ob = OutBytes();
  for (int64_t n = 0; n < n_; ++n) {
    for (int64_t oc0 = 0; oc0 < m_; oc0 += to) {
      const int64_t oc1 = std::min(m_, oc0 + to), tc = oc1 - oc0;
      const auto wrow = static_cast<int64_t>(WeightRowBytes());
      // Resident operands of the channel tile, after everything before (the previous channel
      // tile's computes read them).
      b.DmaIn(1, U(oc0 * wrow), 1, static_cast<uint32_t>(tc * wrow), 0, sw);
      if (has_bias_) b.DmaIn(2, U(oc0) * 4, 1, static_cast<uint32_t>(tc * 4), 0, sb);
      if (out_type_ != DType::kI32) {
        b.DmaIn(4, rq_rows_ == 1 ? 0 : U(oc0) * 8, 1, static_cast<uint32_t>(RqBytes(rq_rows_, tc)),
                0, srq);
      }
      if (residual_) {
        b.DmaIn(5, rrq_rows_ == 1 ? 0 : U(oc0) * 8, 1,
                static_cast<uint32_t>(RqBytes(rrq_rows_, tc)), 0, srrq);
      }
      // Plain variables, not a structured binding: the lambdas below capture them.
      const std::pair<int64_t, int64_t> channels = InputChannels(oc0, oc1);
      const int64_t ic0 = channels.first, ic1 = channels.second;
      auto rows_of = [&](int64_t t) { return std::make_pair(t * th, std::min(oh_, t * th + th)); };
      // Tile t's slab and residual into its buffer set.
      auto load = [&](int64_t t, int p, int32_t after) {
        const auto [oh0, oh1] = rows_of(t);
        const auto [ih0, ih1] = InputRows(oh0, oh1);
        int32_t last = -1;
        if (ih1 > ih0) {
          last = b.DmaInAfter(after, 0, U(((n * c_ + ic0) * h_ + ih0) * w_),
                              static_cast<uint32_t>(ic1 - ic0),
                              static_cast<uint32_t>((ih1 - ih0) * w_), U(h_ * w_), sx[p]);
        }
        if (residual_) {
          last = b.DmaInAfter(after, 3, U(((n * m_ + oc0) * oh_ + oh0) * ow_),
                              static_cast<uint32_t>(tc), static_cast<uint32_t>((oh1 - oh0) * ow_),
                              U(oh_ * ow_), sres[p]);
        }
        return last;
      };
      auto compute = [&](int64_t t, int p, int32_t dep) {
        const auto [oh0, oh1] = rows_of(t);
        DspCommand& c = b.ComputeAfter(dep);
        c.tile[0] = n, c.tile[1] = oc0, c.tile[2] = oc1, c.tile[3] = oh0, c.tile[4] = oh1;
        c.buf[kX] = sx[p], c.buf[kW] = sw, c.buf[kBias] = sb, c.buf[kRq] = srq;
        c.buf[kRes] = sres[p], c.buf[kOut] = sout[p], c.buf[kAcc] = sacc, c.buf[kResRq] = srrq;
        return b.last();
      };
      auto store = [&](int64_t t, int p, int32_t done) {
        const auto [oh0, oh1] = rows_of(t);
        const uint64_t out_row = U(((n * m_ + oc0) * oh_ + oh0) * ow_);
        b.DmaOut(out_slot_, out_row * ob, static_cast<uint32_t>(tc),
                 static_cast<uint32_t>(U((oh1 - oh0) * ow_) * ob), U(oh_ * ow_) * ob, sout[p],
                 done);
      };
      b.EmitTiles(CeilDiv(oh_, th), double_buffer, load, compute, store);
    }
  }
  return b.Take();
}

bool DspK4Eligible(const Graph& graph, const Node& node) {
  if (node.op != OpType::kQConv || node.inputs.size() < 2) return false;
  const Value& wv = graph.value(node.inputs[1]);
  if (!wv.is_constant() || wv.dtype != DType::kI8 || wv.shape.size() != 4) return false;
  if (node.attrs.GetInt("group", 1) != 1) return false;
  for (int64_t z : wv.quant.zero_points) {
    if (z != 0) return false;
  }
  const std::vector<int64_t> strides = node.attrs.GetInts("strides", {1, 1});
  return strides.size() == 2 && strides[1] >= 1 && strides[1] <= 2;
}

bool DspConv::UseQuadLayout(const Graph& graph, const Node& node) {
  if (!DspK4Eligible(graph, node)) return false;
  quad_ = true;
  cq_ = (c_ + 3) / 4;
  return true;
}

int64_t DspConv::QuadRows(int64_t th) const { return (th - 1) * sh_ + (kh_ - 1) * dh_ + 1; }
int64_t DspConv::QuadCols() const { return (ow_ + 15) / 16 * 16 * sw_ + (kw_ - 1) * dw_; }

uint64_t DspConv::AccRegionBytes(int64_t th) const {
  const uint64_t acc = DspAlign(U(th * ow_) * 4);
  return quad_ ? acc + U(cq_ * 4 * QuadRows(th) * QuadCols()) : acc;
}

void DspConv::ComputeQuads(const DspCommand& c, uint8_t* s, const uint8_t* x, int64_t slab_rows,
                           int32_t* acc) const {
  const int64_t oc0 = c.tile[1], oc1 = c.tile[2], oh0 = c.tile[3], oh1 = c.tile[4];
  const int64_t th = oh1 - oh0, plane = th * ow_;
  const auto [ih0, ih1] = InputRows(oh0, oh1);
  (void)ih1;
  // The tile's input, every input channel, as [C/4][rows][cols][4] codes shifted to u8, with
  // the padding (rows and columns outside the image, channels past C) set to the zero point:
  // then every window tap of every output is in range and contributes w * (x - zero) exactly
  // as the reference does, padding included (where x - zero is 0).
  const int64_t rows = QuadRows(th), cols = QuadCols();
  uint8_t* q = s + c.buf[kAcc] + DspAlign(U(plane) * 4);
  const uint8_t flip = x_type_ == DType::kI8 ? 0x80 : 0;
  const auto zero = static_cast<uint8_t>(x_zero_ + (x_type_ == DType::kI8 ? 128 : 0));
  const int64_t row0 = oh0 * sh_ - ph_;
  for (int64_t cq = 0; cq < cq_; ++cq) {
    for (int64_t r = 0; r < rows; ++r) {
      uint8_t* dst = q + (cq * rows + r) * cols * 4;
      std::fill(dst, dst + cols * 4, zero);
      const int64_t ir = row0 + r;
      if (ir < 0 || ir >= h_) continue;
      for (int64_t j = 0; j < 4 && cq * 4 + j < c_; ++j) {
        const uint8_t* src = x + ((cq * 4 + j) * slab_rows + (ir - ih0)) * w_;
        for (int64_t iw = 0; iw < w_; ++iw) {
          const int64_t col = iw + pw_;
          if (col < cols) dst[col * 4 + j] = src[iw] ^ flip;
        }
      }
    }
  }
  const DspRowKernels& k = BestDspRowKernels();
  const uint64_t wrow = WeightRowBytes();
  for (int64_t oc = oc0; oc < oc1; ++oc) {
    const int64_t t = oc - oc0;
    const auto* wk = reinterpret_cast<const int8_t*>(s + c.buf[kW] + U(t) * wrow);
    // sum (x - z) w = sum x w - z sum w: the second term once per channel, in the start value.
    int32_t wsum = 0;
    for (uint64_t i = 0; i < wrow; ++i) wsum += wk[i];
    int32_t bias = 0;
    if (has_bias_) std::memcpy(&bias, s + c.buf[kBias] + t * 4, 4);
    std::fill(acc, acc + plane, bias - static_cast<int32_t>(zero) * wsum);
    for (int64_t kh = 0; kh < kh_; ++kh) {
      for (int64_t kw = 0; kw < kw_; ++kw) {
        for (int64_t cq = 0; cq < cq_; ++cq) {
          int32_t w4;
          std::memcpy(&w4, wk + ((kh * kw_ + kw) * cq_ + cq) * 4, 4);
          if (w4 == 0) continue;
          const uint8_t* xq = q + ((cq * rows + kh * dh_) * cols + kw * dw_) * 4;
          k.dot_q4(xq, sh_ * cols * 4, acc, ow_, th, ow_, sw_, w4);
        }
      }
    }
    Finish(c, s, t, acc, plane);
  }
}

Expected<std::unique_ptr<DspOp>> MakeDspConv(const Graph& graph, const Node& node) {
  return MakeInitializedDspOp<DspConv>(graph, node);
}

}  // namespace kiln
