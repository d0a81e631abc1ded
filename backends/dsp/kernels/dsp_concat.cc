// The DSP target's QConcat (each input brought to the output's parameters, the reference's
// arithmetic: kernels/reference/qconcat.cc) and Concat of 8-bit codes (a copy): per input,
// tiles of rows (the dims before the axis) x a column chunk of its block, DMA'd in packed and
// out with the output's row stride into the input's slice.
#include <algorithm>
#include <cstring>

#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_ops.h"
#include "kernels/reference/quantized_util.h"

namespace kiln {
namespace {

// tile = {input, outer0, outer1, k0, k1}; buf = {in, params (the input's requant row), out}.
enum Buf { kIn = 0, kParams, kOut };

class DspConcat : public DspOp {
 public:
  Status Init(const Graph& graph, const Node& node) {
    quantized_ = node.op == OpType::kQConcat;
    const size_t n = quantized_ ? node.inputs.size() - 1 : node.inputs.size();
    if (n < 1) return InvalidArgument("concat without inputs");
    const Value& yv = graph.value(node.outputs[0]);
    if (!IsDspCode(yv.dtype)) return Unsupported("concat output dtype");
    const auto rank = static_cast<int64_t>(yv.shape.size());
    int64_t axis = node.attrs.GetInt("axis", 0);
    if (axis < 0) axis += rank;
    if (axis < 0 || axis >= rank) return InvalidArgument("concat axis out of range");
    outer_ = NumElements(Shape(yv.shape.begin(), yv.shape.begin() + axis));
    row_ = NumElements(Shape(yv.shape.begin() + axis, yv.shape.end()));
    int64_t total = 0;
    for (size_t i = 0; i < n; ++i) {
      if (node.inputs[i] == kNoValue) return InvalidArgument("concat with an omitted input");
      const Value& in = graph.value(node.inputs[i]);
      if (!IsDspCode(in.dtype) || (!quantized_ && in.dtype != yv.dtype)) {
        return Unsupported("concat input dtype");
      }
      if (static_cast<int64_t>(in.shape.size()) != rank) return InvalidArgument("concat ranks");
      const int64_t block = NumElements(Shape(in.shape.begin() + axis, in.shape.end()));
      if (block * outer_ != in.num_elements()) return InvalidArgument("concat input shape");
      offsets_.push_back(total);
      blocks_.push_back(block);
      types_.push_back(in.dtype);
      zeros_.push_back(ZeroPointOf(in));
      total += block;
    }
    if (total != row_) return InvalidArgument("concat inputs do not fill the output");
    out_type_ = yv.dtype;
    out_zero_ = ZeroPointOf(yv);
    if (quantized_) {
      const Value& rq = graph.value(node.inputs[n]);
      KILN_RETURN_IF_ERROR(ReadRequant(rq, static_cast<int64_t>(n)).status());
      if (rq.shape[0] != static_cast<int64_t>(n)) return InvalidArgument("QConcat requant rows");
      rq_slot_ = static_cast<uint8_t>(n);
    }
    out_slot_ = static_cast<uint8_t>(node.inputs.size());
    return Status::Ok();
  }

  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override {
    const uint64_t params = quantized_ ? 64 : 0;
    if (scratch_bytes < params + 256) return Unsupported("scratchpad too small");
    const uint64_t budget = (scratch_bytes - params) / 2 / 64 * 64;  // in and out halves
    DspProgramBuilder b(scratch_bytes);
    const uint32_t sp = 0, sin = static_cast<uint32_t>(params);
    const auto sout = static_cast<uint32_t>(params + budget);
    for (size_t i = 0; i < blocks_.size(); ++i) {
      const int64_t block = blocks_[i];
      const int64_t kc = std::min<int64_t>(block, static_cast<int64_t>(budget));
      const int64_t rows =
          kc == block ? std::min<int64_t>(outer_, static_cast<int64_t>(budget) / block) : 1;
      int32_t dep = -1;
      if (quantized_) dep = b.DmaIn(rq_slot_, i * 8, 1, 8, 0, sp);
      for (int64_t o0 = 0; o0 < outer_; o0 += rows) {
        const int64_t o1 = std::min(outer_, o0 + rows);
        for (int64_t k0 = 0; k0 < block; k0 += kc) {
          const int64_t k1 = std::min(block, k0 + kc);
          const auto n = static_cast<uint32_t>(o1 - o0), w = static_cast<uint32_t>(k1 - k0);
          dep = b.DmaIn(static_cast<uint8_t>(i), U(o0 * block + k0), n, w, U(block), sin);
          DspCommand& c = b.Compute(dep);
          c.tile[0] = static_cast<int64_t>(i), c.tile[1] = o0, c.tile[2] = o1, c.tile[3] = k0,
          c.tile[4] = k1;
          c.buf[kIn] = sin, c.buf[kParams] = sp, c.buf[kOut] = sout;
          b.DmaOut(out_slot_, U(o0 * row_ + offsets_[i] + k0), n, w, U(row_), sout, b.last());
        }
      }
    }
    return b.Take();
  }

  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override {
    const int64_t i = c.tile[0], o0 = c.tile[1], o1 = c.tile[2], k0 = c.tile[3], k1 = c.tile[4];
    if (i < 0 || i >= static_cast<int64_t>(blocks_.size()) || o0 < 0 || o0 >= o1 || o1 > outer_ ||
        k0 < 0 || k0 >= k1 || k1 > blocks_[static_cast<size_t>(i)]) {
      return InvalidArgument("concat tile outside");
    }
    const uint64_t n = U((o1 - o0) * (k1 - k0));
    out->push_back({c.buf[kIn], n, false});
    if (quantized_) out->push_back({c.buf[kParams], 8, false});
    out->push_back({c.buf[kOut], n, true});
    return Status::Ok();
  }

  void Compute(const DspCommand& c, uint8_t* s) const override {
    const auto i = static_cast<size_t>(c.tile[0]);
    const int64_t n = (c.tile[2] - c.tile[1]) * (c.tile[4] - c.tile[3]);
    const uint8_t* x = s + c.buf[kIn];
    uint8_t* y = s + c.buf[kOut];
    if (!quantized_) {
      std::memcpy(y, x, static_cast<size_t>(n));
      return;
    }
    Requant r;
    std::memcpy(&r, s + c.buf[kParams], 8);
    r = ClampToValidRequant(r);
    const int32_t lo = QuantCodeMin(out_type_), hi = QuantCodeMax(out_type_);
    for (int64_t k = 0; k < n; ++k) {
      const int32_t v = LoadQuantized(x, types_[i], k) - zeros_[i];
      StoreQuantized(y, out_type_, k, RequantizeToOutput(v, r, out_zero_, lo, hi));
    }
  }

  DspCounters Work(const DspCommand& c) const override {
    DspCounters k;
    k.elem_ops = (c.tile[2] - c.tile[1]) * (c.tile[4] - c.tile[3]);
    return k;
  }

 private:
  static uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }

  bool quantized_ = true;
  int64_t outer_ = 1, row_ = 0;
  std::vector<int64_t> offsets_, blocks_;
  std::vector<DType> types_;
  std::vector<int32_t> zeros_;
  DType out_type_ = DType::kU8;
  int32_t out_zero_ = 0;
  uint8_t rq_slot_ = 0, out_slot_ = 0;
};

}  // namespace

Expected<std::unique_ptr<DspOp>> MakeDspConcat(const Graph& graph, const Node& node) {
  return MakeInitializedDspOp<DspConcat>(graph, node);
}

}  // namespace kiln
