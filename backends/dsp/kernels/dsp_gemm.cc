// The DSP target's QGemm: tiles of output features (weights resident) x rows of A. The
// reference QGemm's arithmetic (kernels/reference/qgemm.cc).
#include <algorithm>
#include <cstring>

#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_ops.h"
#include "kernels/reference/quantized_util.h"

namespace kiln {
namespace {

// tile = {m0, m1, n0, n1}; buf = {a, b, bias, requant, out}.
enum Buf { kA = 0, kB, kBias, kRq, kOut };

class DspGemm : public DspOp {
 public:
  Status Init(const Graph& graph, const Node& node) {
    if (node.attrs.GetInt("transA", 0) != 0) return Unsupported("QGemm with transA = 1");
    const Value& av = graph.value(node.inputs[0]);
    const Value& bv = graph.value(node.inputs[1]);
    const int64_t axis = node.attrs.GetInt("a_flatten_axis", 1);
    if (axis < 1 || axis >= static_cast<int64_t>(av.shape.size()) || bv.shape.size() != 2 ||
        !bv.is_constant() || bv.layout != Layout::kPlain) {
      return Unsupported("QGemm needs a_flatten_axis in range and a plain 2-D constant B");
    }
    if (!IsDspCode(av.dtype) || !IsDspCode(bv.dtype)) return Unsupported("QGemm operand dtype");
    m_ = NumElements(Shape(av.shape.begin(), av.shape.begin() + axis));
    k_ = NumElements(Shape(av.shape.begin() + axis, av.shape.end()));
    tb_ = node.attrs.GetInt("transB", 0) != 0;
    n_ = tb_ ? bv.shape[0] : bv.shape[1];
    if ((tb_ ? bv.shape[1] : bv.shape[0]) != k_) return InvalidArgument("QGemm inner dims differ");
    const Value& yv = graph.value(node.outputs[0]);
    out_type_ = yv.dtype;
    if (!IsDspCode(out_type_) && out_type_ != DType::kI32) return Unsupported("QGemm output dtype");
    if (yv.num_elements() != m_ * n_) return InvalidArgument("QGemm output shape");
    a_type_ = av.dtype;
    b_type_ = bv.dtype;
    a_zero_ = ZeroPointOf(av);
    out_zero_ = out_type_ == DType::kI32 ? 0 : ZeroPointOf(yv);
    b_zero_ = ZeroPointsOf(bv, n_);
    clamp_ = ReadClamp(node.attrs, out_type_);
    has_bias_ = node.inputs.size() > 2 && node.inputs[2] != kNoValue;
    if (has_bias_) {
      const Value& c = graph.value(node.inputs[2]);
      if (!c.is_constant() || c.dtype != DType::kI32 || c.num_elements() != n_) {
        return Unsupported("QGemm bias must be a constant i32 [N]");
      }
    }
    if (out_type_ != DType::kI32) {
      if (node.inputs.size() <= 3 || node.inputs[3] == kNoValue) {
        return InvalidArgument("QGemm with an 8-bit output needs its requant input");
      }
      const Value& rq = graph.value(node.inputs[3]);
      KILN_RETURN_IF_ERROR(ReadRequant(rq, n_).status());
      rq_rows_ = rq.shape[0];
    }
    out_slot_ = static_cast<uint8_t>(node.inputs.size());
    return Status::Ok();
  }

  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override {
    int64_t best_tn = 0, best_tm = 0;
    uint64_t best = UINT64_MAX;
    for (int64_t tn = n_;; tn = (tn + 1) / 2) {
      for (int64_t tm = m_; tm >= 1; tm = tm == 1 ? 0 : (tm + 1) / 2) {
        if (WorkingSet(tm, tn) > scratch_bytes) continue;
        const uint64_t bytes = U(n_ * k_) + U(CeilDiv(n_, tn) * m_ * k_);
        if (bytes < best) best = bytes, best_tn = tn, best_tm = tm;
        break;
      }
      if (tn == 1) break;
    }
    if (best_tn == 0) {
      return Unsupported("no QGemm tile fits a " + std::to_string(scratch_bytes) +
                         "-byte scratchpad (K = " + std::to_string(k_) + ")");
    }
    return Emit(scratch_bytes, best_tm, best_tn);
  }

  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override {
    const int64_t m0 = c.tile[0], m1 = c.tile[1], n0 = c.tile[2], n1 = c.tile[3];
    if (m0 < 0 || m0 >= m1 || m1 > m_ || n0 < 0 || n0 >= n1 || n1 > n_) {
      return InvalidArgument("QGemm compute tile outside the output");
    }
    out->push_back({c.buf[kA], U((m1 - m0) * k_), false});
    out->push_back({c.buf[kB], U((n1 - n0) * k_), false});
    if (has_bias_) out->push_back({c.buf[kBias], U(n1 - n0) * 4, false});
    if (out_type_ != DType::kI32) out->push_back({c.buf[kRq], RqBytes(n1 - n0), false});
    out->push_back({c.buf[kOut], U((m1 - m0) * (n1 - n0)) * OutBytes(), true});
    return Status::Ok();
  }

  void Compute(const DspCommand& c, uint8_t* s) const override {
    const int64_t m0 = c.tile[0], m1 = c.tile[1], n0 = c.tile[2], n1 = c.tile[3];
    const int64_t tn = n1 - n0;
    const uint8_t* a = s + c.buf[kA];
    const uint8_t* b = s + c.buf[kB];
    uint8_t* y = s + c.buf[kOut];
    for (int64_t m = m0; m < m1; ++m) {
      const int64_t arow = (m - m0) * k_;
      for (int64_t n = n0; n < n1; ++n) {
        const int64_t t = n - n0;
        int32_t acc = 0;
        if (has_bias_) std::memcpy(&acc, s + c.buf[kBias] + t * 4, 4);
        const int32_t zb = b_zero_[static_cast<size_t>(n)];
        for (int64_t k = 0; k < k_; ++k) {
          const int64_t bi = tb_ ? t * k_ + k : k * tn + t;
          acc += (LoadQuantized(a, a_type_, arow + k) - a_zero_) *
                 (LoadQuantized(b, b_type_, bi) - zb);
        }
        int32_t v;
        if (out_type_ == DType::kI32) {
          v = std::clamp(acc, clamp_.lo, clamp_.hi);
        } else {
          Requant rq;
          std::memcpy(&rq, s + c.buf[kRq] + (rq_rows_ == 1 ? 0 : t) * 8, 8);
          rq = ClampToValidRequant(rq);
          v = RequantizeToOutput(acc, rq, out_zero_, clamp_.lo, clamp_.hi);
        }
        StoreQuantized(y, out_type_, (m - m0) * tn + t, v);
      }
    }
  }

  DspCounters Work(const DspCommand& c) const override {
    DspCounters k;
    k.macs = (c.tile[1] - c.tile[0]) * (c.tile[3] - c.tile[2]) * k_;
    return k;
  }

 private:
  static int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
  static uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }
  uint64_t RqBytes(int64_t tn) const { return U(rq_rows_ == 1 ? 1 : tn) * 8; }
  uint64_t OutBytes() const { return out_type_ == DType::kI32 ? 4 : 1; }
  uint64_t WorkingSet(int64_t tm, int64_t tn) const {
    return DspAlign(U(tm * k_)) + DspAlign(U(tn * k_)) + DspAlign(U(tn) * 4) +
           DspAlign(RqBytes(tn)) + DspAlign(U(tm * tn) * OutBytes());
  }

  DspProgram Emit(uint32_t scratch_bytes, int64_t tm, int64_t tn) const {
    DspProgramBuilder b(scratch_bytes);
    uint32_t off = 0;
    auto take = [&](uint64_t bytes) {
      const uint32_t at = off;
      off += static_cast<uint32_t>(DspAlign(bytes));
      return at;
    };
    const uint32_t sa = take(U(tm * k_)), sb = take(U(tn * k_)), sbias = take(U(tn) * 4),
                   srq = take(RqBytes(tn)), sout = take(U(tm * tn) * OutBytes());
    const uint64_t ob = OutBytes();
    for (int64_t n0 = 0; n0 < n_; n0 += tn) {
      const int64_t n1 = std::min(n_, n0 + tn), tc = n1 - n0;
      int32_t dep =
          tb_ ? b.DmaIn(1, U(n0 * k_), 1, static_cast<uint32_t>(tc * k_), 0, sb)
              : b.DmaIn(1, U(n0), static_cast<uint32_t>(k_), static_cast<uint32_t>(tc), U(n_), sb);
      if (has_bias_) dep = b.DmaIn(2, U(n0) * 4, 1, static_cast<uint32_t>(tc * 4), 0, sbias);
      if (out_type_ != DType::kI32) {
        dep = b.DmaIn(3, rq_rows_ == 1 ? 0 : U(n0) * 8, 1, static_cast<uint32_t>(RqBytes(tc)), 0,
                      srq);
      }
      for (int64_t m0 = 0; m0 < m_; m0 += tm) {
        const int64_t m1 = std::min(m_, m0 + tm);
        dep = b.DmaIn(0, U(m0 * k_), 1, static_cast<uint32_t>((m1 - m0) * k_), 0, sa);
        DspCommand& c = b.Compute(dep);
        c.tile[0] = m0, c.tile[1] = m1, c.tile[2] = n0, c.tile[3] = n1;
        c.buf[kA] = sa, c.buf[kB] = sb, c.buf[kBias] = sbias, c.buf[kRq] = srq, c.buf[kOut] = sout;
        const int32_t comp = b.last();
        b.DmaOut(out_slot_, U(m0 * n_ + n0) * ob, static_cast<uint32_t>(m1 - m0),
                 static_cast<uint32_t>(U(tc) * ob), U(n_) * ob, sout, comp);
      }
    }
    return b.Take();
  }

  int64_t m_ = 0, k_ = 0, n_ = 0, rq_rows_ = 1;
  bool tb_ = false, has_bias_ = false;
  DType a_type_ = DType::kU8, b_type_ = DType::kI8, out_type_ = DType::kU8;
  int32_t a_zero_ = 0, out_zero_ = 0;
  std::vector<int32_t> b_zero_;
  QuantClamp clamp_;
  uint8_t out_slot_ = 0;
};

}  // namespace

Expected<std::unique_ptr<DspOp>> MakeDspGemm(const Graph& graph, const Node& node) {
  return MakeInitializedDspOp<DspGemm>(graph, node);
}

}  // namespace kiln
