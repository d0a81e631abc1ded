// The DSP target's elementwise ops: QAdd and QMul (same-shape operands, or one repeated along
// trailing dims: a per-channel operand) and QLookup, in tiles of consecutive elements. The
// reference kernels' arithmetic (qbinary.cc, qlookup.cc).
#include <algorithm>
#include <cstring>

#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_ops.h"
#include "kernels/reference/quantized_util.h"

namespace kiln {
namespace {

// tile = {e0, e1}; buf = {a, b, params (requant rows or the 256-byte table), out}.
enum Buf { kA = 0, kB, kParams, kOut };

class DspElementwise : public DspOp {
 public:
  Status Init(const Graph& graph, const Node& node) {
    op_ = node.op;
    const Value& av = graph.value(node.inputs[0]);
    const Value& yv = graph.value(node.outputs[0]);
    if (!IsDspCode(av.dtype) || !IsDspCode(yv.dtype)) return Unsupported("operand dtype");
    a_type_ = av.dtype;
    out_type_ = yv.dtype;
    a_zero_ = ZeroPointOf(av);
    out_zero_ = ZeroPointOf(yv);
    elems_ = yv.num_elements();
    clamp_ = ReadClamp(node.attrs, out_type_);
    if (op_ == OpType::kQLookup) {
      if (av.num_elements() != elems_) return InvalidArgument("QLookup output size");
      const Value& t = graph.value(node.inputs[1]);
      if (!t.is_constant() || t.num_elements() != 256 || !IsDspCode(t.dtype)) {
        return InvalidArgument("QLookup needs a constant 256-entry 8-bit table");
      }
      params_bytes_ = 256;
      params_slot_ = 1;
    } else {
      const Value& bv = graph.value(node.inputs[1]);
      if (!IsDspCode(bv.dtype)) return Unsupported("operand dtype");
      if (bv.shape != av.shape || yv.shape != av.shape) {
        // One operand has the output's shape, the other repeats along trailing dims (a
        // per-channel scale or bias, [1, C, 1, 1] against [N, C, H, W]): kept whole in the
        // scratchpad, indexed by plane.
        if (yv.shape != av.shape && yv.shape != bv.shape) {
          return Unsupported("broadcasting operands (neither has the output's shape)");
        }
        bcast_ = yv.shape == av.shape ? 1 : 0;
        KILN_RETURN_IF_ERROR(PlanePattern(bcast_ == 0 ? av.shape : bv.shape, yv.shape));
      }
      b_type_ = bv.dtype;
      b_zero_ = ZeroPointOf(bv);
      const int64_t rows = op_ == OpType::kQAdd ? 3 : 1;
      const Value& rq = graph.value(node.inputs[2]);
      KILN_RETURN_IF_ERROR(ReadRequant(rq, rows).status());
      if (rq.shape[0] != rows) return InvalidArgument("requant rows");
      params_bytes_ = static_cast<uint32_t>(rows * 8);
      params_slot_ = 2;
    }
    out_slot_ = static_cast<uint8_t>(node.inputs.size());
    return Status::Ok();
  }

  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override {
    const uint64_t bcast = bcast_ < 0 ? 0 : DspAlign(bcast_bytes_);
    if (bcast > scratch_bytes / 4)
      return Unsupported("broadcast operand too large for the scratchpad");
    const uint64_t fixed = DspAlign(params_bytes_) + bcast;
    const uint64_t streams = binary() && bcast_ < 0 ? 3 : 2;
    if (scratch_bytes <= fixed + streams * 64) return Unsupported("scratchpad too small");
    const int64_t te = std::min<int64_t>(
        elems_, static_cast<int64_t>((scratch_bytes - fixed) / streams / 64 * 64));
    DspProgramBuilder b(scratch_bytes);
    const uint32_t sp = 0;
    const auto sbc = static_cast<uint32_t>(DspAlign(params_bytes_));  // the broadcast operand
    const auto s1 = static_cast<uint32_t>(fixed);
    const uint32_t s2 = s1 + static_cast<uint32_t>(DspAlign(static_cast<uint64_t>(te)));
    const uint32_t sout =
        streams == 3 ? s2 + static_cast<uint32_t>(DspAlign(static_cast<uint64_t>(te))) : s2;
    // Streamed operands: a and b (same shape), or the full one; the broadcast one stays whole.
    const uint32_t sa = bcast_ == 0 ? sbc : s1;
    const uint32_t sb = bcast_ == 1 ? sbc : (bcast_ == 0 ? s1 : s2);
    int32_t dep = b.DmaIn(params_slot_, 0, 1, params_bytes_, 0, sp);
    if (bcast_ >= 0) {
      dep =
          b.DmaIn(static_cast<uint8_t>(bcast_), 0, 1, static_cast<uint32_t>(bcast_bytes_), 0, sbc);
    }
    for (int64_t e0 = 0; e0 < elems_; e0 += te) {
      const int64_t e1 = std::min(elems_, e0 + te);
      const auto bytes = static_cast<uint32_t>(e1 - e0);
      if (bcast_ != 0) dep = b.DmaIn(0, static_cast<uint64_t>(e0), 1, bytes, 0, sa);
      if (binary() && bcast_ != 1) dep = b.DmaIn(1, static_cast<uint64_t>(e0), 1, bytes, 0, sb);
      DspCommand& c = b.Compute(dep);
      c.tile[0] = e0, c.tile[1] = e1;
      c.buf[kA] = sa, c.buf[kB] = sb, c.buf[kParams] = sp, c.buf[kOut] = sout;
      b.DmaOut(out_slot_, static_cast<uint64_t>(e0), 1, bytes, 0, sout, b.last());
    }
    return b.Take();
  }

  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override {
    const int64_t e0 = c.tile[0], e1 = c.tile[1];
    if (e0 < 0 || e0 >= e1 || e1 > elems_) return InvalidArgument("elementwise tile outside");
    const auto n = static_cast<uint64_t>(e1 - e0);
    out->push_back({c.buf[kParams], params_bytes_, false});
    out->push_back({c.buf[kA], bcast_ == 0 ? bcast_bytes_ : n, false});
    if (binary()) out->push_back({c.buf[kB], bcast_ == 1 ? bcast_bytes_ : n, false});
    out->push_back({c.buf[kOut], n, true});
    return Status::Ok();
  }

  void Compute(const DspCommand& c, uint8_t* s) const override {
    const int64_t n = c.tile[1] - c.tile[0];
    const uint8_t* a = s + c.buf[kA];
    const uint8_t* b = s + c.buf[kB];
    const uint8_t* p = s + c.buf[kParams];
    uint8_t* y = s + c.buf[kOut];
    if (op_ == OpType::kQLookup) {
      const uint8_t flip = a_type_ == DType::kI8 ? 0x80 : 0;
      for (int64_t i = 0; i < n; ++i) y[i] = p[a[i] ^ flip];
      return;
    }
    Requant r[3];
    std::memcpy(r, p, params_bytes_);
    for (Requant& q : r) q = ClampToValidRequant(q);
    // Element i of the tile: the broadcast operand is indexed by the element's plane.
    const int64_t e0 = c.tile[0];
    auto index = [&](int side, int64_t i) {
      return bcast_ == side ? plane_index_[static_cast<size_t>((e0 + i) / inner_)] : i;
    };
    if (op_ == OpType::kQAdd) {
      for (int64_t i = 0; i < n; ++i) {
        const int32_t av = Requantize(
            (LoadQuantized(a, a_type_, index(0, i)) - a_zero_) * (int32_t{1} << kAddLeftShift),
            r[0]);
        const int32_t bv = Requantize(
            (LoadQuantized(b, b_type_, index(1, i)) - b_zero_) * (int32_t{1} << kAddLeftShift),
            r[1]);
        StoreQuantized(
            y, out_type_, i,
            RequantizeToOutput(WrappingAdd(av, bv), r[2], out_zero_, clamp_.lo, clamp_.hi));
      }
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      const int32_t prod = (LoadQuantized(a, a_type_, index(0, i)) - a_zero_) *
                           (LoadQuantized(b, b_type_, index(1, i)) - b_zero_);
      StoreQuantized(y, out_type_, i,
                     RequantizeToOutput(prod, r[0], out_zero_, clamp_.lo, clamp_.hi));
    }
  }

  DspCounters Work(const DspCommand& c) const override {
    DspCounters k;
    k.elem_ops = c.tile[1] - c.tile[0];
    return k;
  }

 private:
  bool binary() const { return op_ != OpType::kQLookup; }

  // The broadcast operand `s` against the output `y`: equal or 1 in the leading dims, 1 in the
  // trailing ones. Fills plane_index_ (plane of the leading dims -> element of s) and inner_.
  Status PlanePattern(const Shape& s_in, const Shape& y) {
    if (s_in.size() > y.size()) return Unsupported("broadcasting operands");
    Shape s(y.size() - s_in.size(), 1);
    s.insert(s.end(), s_in.begin(), s_in.end());
    size_t k = y.size();
    while (k > 0 && s[k - 1] == 1) --k;
    for (size_t d = 0; d < k; ++d) {
      if (s[d] != y[d] && s[d] != 1) return Unsupported("broadcasting operands (a middle dim)");
    }
    const int64_t planes = NumElements(Shape(y.begin(), y.begin() + static_cast<int64_t>(k)));
    inner_ = NumElements(Shape(y.begin() + static_cast<int64_t>(k), y.end()));
    if (planes > (int64_t{1} << 20) || inner_ < 1) return Unsupported("broadcasting operands");
    bcast_bytes_ = static_cast<uint64_t>(NumElements(s));
    plane_index_.assign(static_cast<size_t>(planes), 0);
    for (int64_t p = 0; p < planes; ++p) {
      int64_t rest = p, idx = 0, stride = 1;
      for (size_t d = k; d-- > 0;) {
        const int64_t m = rest % y[d];
        rest /= y[d];
        if (s[d] != 1) idx += m * stride;
        stride *= s[d];
      }
      plane_index_[static_cast<size_t>(p)] = idx;
    }
    return Status::Ok();
  }

  OpType op_ = OpType::kQAdd;
  int64_t elems_ = 0;
  DType a_type_ = DType::kU8, b_type_ = DType::kU8, out_type_ = DType::kU8;
  int32_t a_zero_ = 0, b_zero_ = 0, out_zero_ = 0;
  QuantClamp clamp_;
  uint32_t params_bytes_ = 0;
  int bcast_ = -1;  // 0: a, 1: b is the broadcast operand; -1: same shapes
  uint64_t bcast_bytes_ = 0;
  int64_t inner_ = 1;
  std::vector<int64_t> plane_index_;
  uint8_t params_slot_ = 1, out_slot_ = 0;
};

}  // namespace

Expected<std::unique_ptr<DspOp>> MakeDspElementwise(const Graph& graph, const Node& node) {
  return MakeInitializedDspOp<DspElementwise>(graph, node);
}

}  // namespace kiln
