// The DSP target's pools on 8-bit codes: QGlobalAveragePool, QAveragePool and MaxPool (2-D),
// in tiles of whole (n, c) planes. The reference kernels' arithmetic (qpool.cc; MaxPool
// compares codes, which order like the real values).
#include <algorithm>
#include <cstring>

#include "ir/ops/window_geometry.h"
#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_ops.h"
#include "kernels/reference/nn_kernels.h"
#include "kernels/reference/quantized_util.h"

namespace kiln {
namespace {

using nn_ref::ValidRange;

// tile = {p0, p1}; buf = {x, params (requant rows), out}.
enum Buf { kX = 0, kParams, kOut };

class DspPool : public DspOp {
 public:
  Status Init(const Graph& graph, const Node& node) {
    op_ = node.op;
    const Value& xv = graph.value(node.inputs[0]);
    const Value& yv = graph.value(node.outputs[0]);
    if (xv.shape.size() < 3) return Unsupported("pool input rank");
    if (!IsDspCode(xv.dtype)) return Unsupported("pool input dtype");
    out_type_ = yv.dtype;
    if (!IsDspCode(out_type_) &&
        !(op_ == OpType::kQGlobalAveragePool && out_type_ == DType::kI32)) {
      return Unsupported("pool output dtype");
    }
    for (size_t i = 1; i < node.outputs.size(); ++i) {
      if (node.outputs[i] != kNoValue) return Unsupported("MaxPool Indices output");
    }
    x_type_ = xv.dtype;
    x_zero_ = ZeroPointOf(xv);
    out_zero_ = out_type_ == DType::kI32 ? 0 : ZeroPointOf(yv);
    clamp_ = ReadClamp(node.attrs, out_type_);
    planes_ = xv.shape[0] * xv.shape[1];
    in_plane_ = NumElements(Shape(xv.shape.begin() + 2, xv.shape.end()));
    out_plane_ = NumElements(Shape(yv.shape.begin() + 2, yv.shape.end()));
    if (yv.shape[0] * yv.shape[1] != planes_) return InvalidArgument("pool output shape");
    if (op_ != OpType::kQGlobalAveragePool) {
      if (xv.shape.size() != 4) return Unsupported("only 2-D pools");
      KILN_ASSIGN_OR_RETURN(std::vector<int64_t> k, PoolKernelShape(node.attrs, 2));
      KILN_ASSIGN_OR_RETURN(WindowGeometry g,
                            ResolveWindow(node.attrs, {xv.shape[2], xv.shape[3]}, k,
                                          node.attrs.GetInt("ceil_mode", 0) != 0));
      h_ = g.input[0], w_ = g.input[1], kh_ = g.kernel[0], kw_ = g.kernel[1];
      oh_ = g.output[0], ow_ = g.output[1], sh_ = g.strides[0], sw_ = g.strides[1];
      dh_ = g.dilations[0], dw_ = g.dilations[1], ph_ = g.pads_begin[0], pw_ = g.pads_begin[1];
      peh_ = g.pads_end[0], pew_ = g.pads_end[1];
      if (oh_ * ow_ != out_plane_) return InvalidArgument("pool output shape");
      if (op_ == OpType::kMaxPool && node.attrs.GetInt("storage_order", 0) != 0) {
        return Unsupported("MaxPool storage_order");
      }
      if (op_ == OpType::kQAveragePool) {
        if (dh_ != 1 || dw_ != 1) return Unsupported("dilated QAveragePool");
        count_include_pad_ = node.attrs.GetInt("count_include_pad", 0) != 0;
        rq_rows_ = kh_ * kw_;
      }
    }
    if (op_ == OpType::kMaxPool) {
      rq_rows_ = 0;
      if (out_type_ != x_type_) return InvalidArgument("MaxPool output dtype differs");
    }
    if (op_ == OpType::kQGlobalAveragePool && out_type_ == DType::kI32) rq_rows_ = 0;
    if (rq_rows_ > 0) {
      if (node.inputs.size() < 2 || node.inputs[1] == kNoValue) {
        return InvalidArgument("pool needs its requant input");
      }
      const Value& rq = graph.value(node.inputs[1]);
      KILN_RETURN_IF_ERROR(ReadRequant(rq, rq_rows_).status());
      if (rq.shape[0] != rq_rows_) return InvalidArgument("pool requant rows");
    }
    out_slot_ = static_cast<uint8_t>(node.inputs.size());
    return Status::Ok();
  }

  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override {
    const uint64_t fixed = DspAlign(U(rq_rows_) * 8);
    const uint64_t per_plane = U(in_plane_) + U(out_plane_) * OutBytes();
    if (scratch_bytes < fixed + DspAlign(U(in_plane_)) + DspAlign(U(out_plane_) * OutBytes())) {
      return Unsupported("one pool plane does not fit a " + std::to_string(scratch_bytes) +
                         "-byte scratchpad");
    }
    int64_t tp =
        std::min<int64_t>(planes_, static_cast<int64_t>((scratch_bytes - fixed) / per_plane));
    while (tp > 1 &&
           fixed + DspAlign(U(tp * in_plane_)) + DspAlign(U(tp * out_plane_) * OutBytes()) >
               scratch_bytes) {
      --tp;
    }
    DspProgramBuilder b(scratch_bytes);
    const uint32_t sp = 0;
    const auto sx = static_cast<uint32_t>(fixed);
    const auto sout = static_cast<uint32_t>(sx + DspAlign(U(tp * in_plane_)));
    int32_t dep = -1;
    if (rq_rows_ > 0) dep = b.DmaIn(1, 0, 1, static_cast<uint32_t>(rq_rows_ * 8), 0, sp);
    const uint64_t ob = OutBytes();
    for (int64_t p0 = 0; p0 < planes_; p0 += tp) {
      const int64_t p1 = std::min(planes_, p0 + tp);
      dep = b.DmaIn(0, U(p0 * in_plane_), 1, static_cast<uint32_t>((p1 - p0) * in_plane_), 0, sx);
      DspCommand& c = b.Compute(dep);
      c.tile[0] = p0, c.tile[1] = p1;
      c.buf[kX] = sx, c.buf[kParams] = sp, c.buf[kOut] = sout;
      b.DmaOut(out_slot_, U(p0 * out_plane_) * ob, 1,
               static_cast<uint32_t>(U((p1 - p0) * out_plane_) * ob), 0, sout, b.last());
    }
    return b.Take();
  }

  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override {
    const int64_t p0 = c.tile[0], p1 = c.tile[1];
    if (p0 < 0 || p0 >= p1 || p1 > planes_) return InvalidArgument("pool tile outside");
    if (rq_rows_ > 0) out->push_back({c.buf[kParams], U(rq_rows_) * 8, false});
    out->push_back({c.buf[kX], U((p1 - p0) * in_plane_), false});
    out->push_back({c.buf[kOut], U((p1 - p0) * out_plane_) * OutBytes(), true});
    return Status::Ok();
  }

  void Compute(const DspCommand& c, uint8_t* s) const override {
    const int64_t np = c.tile[1] - c.tile[0];
    const uint8_t* x = s + c.buf[kX];
    uint8_t* y = s + c.buf[kOut];
    const uint8_t* params = s + c.buf[kParams];
    auto requant = [&](int64_t row) {
      Requant r;
      std::memcpy(&r, params + row * 8, 8);
      return ClampToValidRequant(r);
    };
    if (op_ == OpType::kQGlobalAveragePool) {
      for (int64_t p = 0; p < np; ++p) {
        int32_t sum = 0;
        for (int64_t i = 0; i < in_plane_; ++i) sum += LoadQuantized(x, x_type_, p * in_plane_ + i);
        sum -= static_cast<int32_t>(in_plane_) * x_zero_;
        const int32_t v = out_type_ == DType::kI32 ? std::clamp(sum, clamp_.lo, clamp_.hi)
                                                   : RequantizeToOutput(sum, requant(0), out_zero_,
                                                                        clamp_.lo, clamp_.hi);
        StoreQuantized(y, out_type_, p, v);
      }
      return;
    }
    for (int64_t p = 0; p < np; ++p) {
      const int64_t xp = p * in_plane_;
      int64_t o = p * out_plane_;
      for (int64_t oh = 0; oh < oh_; ++oh) {
        const int64_t wh = oh * sh_ - ph_;
        int64_t kh0, kh1;
        ValidRange(wh, dh_, h_, kh_, &kh0, &kh1);
        for (int64_t ow = 0; ow < ow_; ++ow, ++o) {
          const int64_t ww = ow * sw_ - pw_;
          int64_t kw0, kw1;
          ValidRange(ww, dw_, w_, kw_, &kw0, &kw1);
          if (op_ == OpType::kMaxPool) {
            int32_t best = QuantCodeMin(x_type_);
            for (int64_t kh = kh0; kh < kh1; ++kh) {
              for (int64_t kw = kw0; kw < kw1; ++kw) {
                best = std::max(
                    best, LoadQuantized(x, x_type_, xp + (wh + kh * dh_) * w_ + ww + kw * dw_));
              }
            }
            StoreQuantized(y, out_type_, o, best);
            continue;
          }
          int32_t sum = 0;
          for (int64_t kh = kh0; kh < kh1; ++kh) {
            for (int64_t kw = kw0; kw < kw1; ++kw) {
              sum += LoadQuantized(x, x_type_, xp + (wh + kh) * w_ + ww + kw) - x_zero_;
            }
          }
          int64_t count = (kh1 - kh0) * (kw1 - kw0);
          if (count_include_pad_) {
            int64_t lo, hi;
            ValidRange(wh + ph_, 1, h_ + ph_ + peh_, kh_, &lo, &hi);
            count = hi - lo;
            ValidRange(ww + pw_, 1, w_ + pw_ + pew_, kw_, &lo, &hi);
            count *= hi - lo;
          }
          count = std::clamp<int64_t>(count, 1, kh_ * kw_);
          StoreQuantized(
              y, out_type_, o,
              RequantizeToOutput(sum, requant(count - 1), out_zero_, clamp_.lo, clamp_.hi));
        }
      }
    }
  }

  DspCounters Work(const DspCommand& c) const override {
    DspCounters k;
    k.elem_ops = (c.tile[1] - c.tile[0]) *
                 (op_ == OpType::kQGlobalAveragePool ? in_plane_ : out_plane_ * kh_ * kw_);
    return k;
  }

 private:
  static uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }
  uint64_t OutBytes() const { return out_type_ == DType::kI32 ? 4 : 1; }

  OpType op_ = OpType::kMaxPool;
  int64_t planes_ = 0, in_plane_ = 0, out_plane_ = 0, rq_rows_ = 1;
  int64_t h_ = 1, w_ = 1, kh_ = 1, kw_ = 1, oh_ = 1, ow_ = 1, sh_ = 1, sw_ = 1, dh_ = 1, dw_ = 1,
          ph_ = 0, pw_ = 0, peh_ = 0, pew_ = 0;
  bool count_include_pad_ = false;
  DType x_type_ = DType::kU8, out_type_ = DType::kU8;
  int32_t x_zero_ = 0, out_zero_ = 0;
  QuantClamp clamp_;
  uint8_t out_slot_ = 0;
};

}  // namespace

Expected<std::unique_ptr<DspOp>> MakeDspPool(const Graph& graph, const Node& node) {
  return MakeInitializedDspOp<DspPool>(graph, node);
}

}  // namespace kiln
