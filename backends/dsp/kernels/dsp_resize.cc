// The DSP target's Resize of 8-bit codes: nearest, rank 4 (N and C kept, H and W resized), for
// the coordinate mappings whose nearest index is floor(o * in / out) on both axes (asymmetric
// with floor, as FPN-style upsampling uses; checked for every output index when the op is
// made, so the executor needs only that integer formula, no floating point). A tile is a range
// of (n, c) planes x a range of output rows, reading the input rows they map to.
#include <algorithm>

#include "ir/ops/resize_params.h"
#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_ops.h"

namespace kiln {
namespace {

// tile = {p0, p1, r0, r1}; buf = {x rows, out}.
enum Buf { kX = 0, kOut };

class DspResize : public DspOp {
 public:
  Status Init(const Graph& graph, const Node& node) {
    const Value& xv = graph.value(node.inputs[0]);
    const Value& yv = graph.value(node.outputs[0]);
    if (!IsDspCode(xv.dtype) || yv.dtype != xv.dtype) return Unsupported("Resize dtype");
    if (xv.shape.size() != 4) return Unsupported("Resize of rank other than 4");
    auto input = [&](size_t i) -> const Value* {
      return i < node.inputs.size() && node.inputs[i] != kNoValue ? &graph.value(node.inputs[i])
                                                                  : nullptr;
    };
    KILN_ASSIGN_OR_RETURN(std::vector<float> roi, ConstantValueFloats(input(1), "roi"));
    KILN_ASSIGN_OR_RETURN(std::vector<float> scales, ConstantValueFloats(input(2), "scales"));
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ConstantValueInts(input(3), "sizes"));
    KILN_ASSIGN_OR_RETURN(ResizeParams p, ResolveResize(node.attrs, xv.shape, roi, scales, sizes));
    if (p.mode != ResizeMode::kNearest) return Unsupported("Resize mode other than nearest");
    if (p.output != yv.shape || p.output[0] != p.input[0] || p.output[1] != p.input[1]) {
      return Unsupported("Resize of N or C");
    }
    for (size_t a = 2; a < 4; ++a) {
      for (int64_t o = 0; o < p.output[a]; ++o) {
        bool outside = false;
        const float x = ResizeSourceCoordinate(p, a, o, &outside);
        if (outside || ResizeNearestIndex(p, x, p.input[a]) != o * p.input[a] / p.output[a]) {
          return Unsupported("Resize whose nearest index is not floor(o * in / out)");
        }
      }
    }
    planes_ = p.input[0] * p.input[1];
    h_ = p.input[2], w_ = p.input[3], oh_ = p.output[2], ow_ = p.output[3];
    if (h_ <= 0 || w_ <= 0 || oh_ <= 0 || ow_ <= 0) return Unsupported("empty Resize");
    out_slot_ = static_cast<uint8_t>(node.inputs.size());
    return Status::Ok();
  }

  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override {
    // Whole planes when one fits, as many as fit; else one plane and the most rows that fit.
    const uint64_t per_plane = U(InRows(oh_) * w_ + oh_ * ow_);
    int64_t tp = std::min<int64_t>(planes_, static_cast<int64_t>(scratch_bytes / per_plane));
    while (tp > 0 && Bytes(tp, oh_) > scratch_bytes) --tp;
    int64_t tr = oh_;
    if (tp == 0) {
      tp = 1;
      while (tr > 0 && Bytes(1, tr) > scratch_bytes) --tr;
      if (tr == 0) {
        return Unsupported("no Resize row fits a " + std::to_string(scratch_bytes) +
                           "-byte scratchpad");
      }
    }
    DspProgramBuilder b(scratch_bytes);
    const uint32_t sx = 0;
    const auto sout = static_cast<uint32_t>(DspAlign(U(tp * InRows(tr) * w_)));
    for (int64_t p0 = 0; p0 < planes_; p0 += tp) {
      const int64_t p1 = std::min(planes_, p0 + tp);
      for (int64_t r0 = 0; r0 < oh_; r0 += tr) {
        const int64_t r1 = std::min(oh_, r0 + tr);
        const int64_t i0 = Src(r0, h_, oh_), i1 = Src(r1 - 1, h_, oh_) + 1;
        const int32_t dep = b.DmaIn(0, U(p0 * h_ * w_ + i0 * w_), static_cast<uint32_t>(p1 - p0),
                                    static_cast<uint32_t>((i1 - i0) * w_), U(h_ * w_), sx);
        DspCommand& c = b.Compute(dep);
        c.tile[0] = p0, c.tile[1] = p1, c.tile[2] = r0, c.tile[3] = r1;
        c.buf[kX] = sx, c.buf[kOut] = sout;
        b.DmaOut(out_slot_, U(p0 * oh_ * ow_ + r0 * ow_), static_cast<uint32_t>(p1 - p0),
                 static_cast<uint32_t>((r1 - r0) * ow_), U(oh_ * ow_), sout, b.last());
      }
    }
    return b.Take();
  }

  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override {
    const int64_t p0 = c.tile[0], p1 = c.tile[1], r0 = c.tile[2], r1 = c.tile[3];
    if (p0 < 0 || p0 >= p1 || p1 > planes_ || r0 < 0 || r0 >= r1 || r1 > oh_) {
      return InvalidArgument("Resize tile outside the output");
    }
    const int64_t rows = Src(r1 - 1, h_, oh_) + 1 - Src(r0, h_, oh_);
    out->push_back({c.buf[kX], U((p1 - p0) * rows * w_), false});
    out->push_back({c.buf[kOut], U((p1 - p0) * (r1 - r0) * ow_), true});
    return Status::Ok();
  }

  void Compute(const DspCommand& c, uint8_t* s) const override {
    const int64_t p0 = c.tile[0], p1 = c.tile[1], r0 = c.tile[2], r1 = c.tile[3];
    const int64_t i0 = Src(r0, h_, oh_);
    const int64_t rows = Src(r1 - 1, h_, oh_) + 1 - i0;
    const uint8_t* x = s + c.buf[kX];
    uint8_t* y = s + c.buf[kOut];
    for (int64_t p = 0; p < p1 - p0; ++p) {
      for (int64_t r = r0; r < r1; ++r) {
        const uint8_t* src = x + (p * rows + Src(r, h_, oh_) - i0) * w_;
        uint8_t* dst = y + (p * (r1 - r0) + r - r0) * ow_;
        for (int64_t o = 0; o < ow_; ++o) dst[o] = src[Src(o, w_, ow_)];
      }
    }
  }

  DspCounters Work(const DspCommand& c) const override {
    DspCounters k;
    k.elem_ops = (c.tile[1] - c.tile[0]) * (c.tile[3] - c.tile[2]) * ow_;
    return k;
  }

 private:
  static uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }
  // Input index of output index o on an axis of `in` -> `out` (checked in Init).
  static int64_t Src(int64_t o, int64_t in, int64_t out) { return o * in / out; }
  // The most input rows any tile of `tr` output rows reads.
  int64_t InRows(int64_t tr) const {
    int64_t most = 0;
    for (int64_t r0 = 0; r0 < oh_; r0 += tr) {
      const int64_t r1 = std::min(oh_, r0 + tr);
      most = std::max(most, Src(r1 - 1, h_, oh_) + 1 - Src(r0, h_, oh_));
    }
    return most;
  }
  uint64_t Bytes(int64_t tp, int64_t tr) const {
    return DspAlign(U(tp * InRows(tr) * w_)) + DspAlign(U(tp * tr * ow_));
  }

  int64_t planes_ = 0, h_ = 0, w_ = 0, oh_ = 0, ow_ = 0;
  uint8_t out_slot_ = 0;
};

}  // namespace

Expected<std::unique_ptr<DspOp>> MakeDspResize(const Graph& graph, const Node& node) {
  return MakeInitializedDspOp<DspResize>(graph, node);
}

}  // namespace kiln
