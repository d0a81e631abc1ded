// The DSP target's Transpose of 8-bit codes (rank 1-6, any permutation; a pure data move, so
// bit-exact by construction). A tile is a contiguous block of the output: a fixed index on the
// output dims before the split dim t, a range [a, b) on dim t, every dim after it whole. The
// input elements it reads form a box (one index, a range or the whole extent per input dim),
// DMA'd in as 2-D blocks into a dense box in the scratchpad; the compute permutes the box into
// the output block, which one DMA writes out.
#include <algorithm>
#include <array>
#include <cstring>

#include "backends/dsp/kernels/dsp_builder.h"
#include "backends/dsp/kernels/dsp_ops.h"

namespace kiln {
namespace {

constexpr size_t kMaxRank = 6;

// tile = {prefix (flat index over output dims < t), a, b, t}; buf = {box, out}.
enum Buf { kBox = 0, kOut };

class DspTranspose : public DspOp {
 public:
  Status Init(const Graph& graph, const Node& node) {
    const Value& xv = graph.value(node.inputs[0]);
    const Value& yv = graph.value(node.outputs[0]);
    if (!IsDspCode(xv.dtype) || yv.dtype != xv.dtype) return Unsupported("Transpose dtype");
    rank_ = xv.shape.size();
    if (rank_ == 0 || rank_ > kMaxRank) return Unsupported("Transpose rank");
    std::vector<int64_t> perm = node.attrs.GetInts("perm", {});
    if (perm.empty()) {
      for (size_t i = 0; i < rank_; ++i) perm.push_back(static_cast<int64_t>(rank_ - 1 - i));
    }
    if (perm.size() != rank_) return InvalidArgument("Transpose perm rank");
    std::array<bool, kMaxRank> seen{};
    for (size_t j = 0; j < rank_; ++j) {
      if (perm[j] < 0 || perm[j] >= static_cast<int64_t>(rank_) ||
          seen[static_cast<size_t>(perm[j])]) {
        return InvalidArgument("Transpose perm is not a permutation");
      }
      seen[static_cast<size_t>(perm[j])] = true;
      perm_[j] = static_cast<size_t>(perm[j]);
    }
    int64_t stride = 1;
    for (size_t d = rank_; d-- > 0;) {
      in_[d] = xv.shape[d];
      in_stride_[d] = stride;
      stride *= in_[d];
    }
    for (size_t j = 0; j < rank_; ++j) {
      out_[j] = in_[perm_[j]];
      if (yv.shape[j] != out_[j]) return InvalidArgument("Transpose output shape");
    }
    out_slot_ = static_cast<uint8_t>(node.inputs.size());
    return Status::Ok();
  }

  Expected<DspProgram> Plan(uint32_t scratch_bytes) const override {
    // The outermost split dim whose single-index slice fits half the scratchpad (box and output
    // block are the same size), and the longest range on it that fits.
    const uint64_t half = scratch_bytes / 2 - 64;
    size_t t = 0;
    while (t + 1 < rank_ && Inner(t) > half) ++t;
    const int64_t r =
        std::max<int64_t>(1, std::min<int64_t>(out_[t], static_cast<int64_t>(half / Inner(t))));
    if (U(r) * Inner(t) > half) {
      return Unsupported("no Transpose tile fits a " + std::to_string(scratch_bytes) +
                         "-byte scratchpad");
    }
    DspProgramBuilder b(scratch_bytes);
    const uint32_t sbox = 0;
    const auto sout = static_cast<uint32_t>(DspAlign(U(r) * Inner(t)));
    int64_t prefixes = 1;
    for (size_t j = 0; j < t; ++j) prefixes *= out_[j];
    for (int64_t p = 0; p < prefixes; ++p) {
      for (int64_t a = 0; a < out_[t]; a += r) {
        const int64_t bnd = std::min(out_[t], a + r);
        DspCommand& c = b.Compute(LoadBox(b, p, a, bnd, t, sbox));
        c.tile[0] = p, c.tile[1] = a, c.tile[2] = bnd, c.tile[3] = static_cast<int64_t>(t);
        c.buf[kBox] = sbox, c.buf[kOut] = sout;
        const uint64_t at = (U(p) * U(out_[t]) + U(a)) * Inner(t);
        b.DmaOut(out_slot_, at, 1, static_cast<uint32_t>(U(bnd - a) * Inner(t)), 0, sout, b.last());
      }
    }
    return b.Take();
  }

  Status Regions(const DspCommand& c, std::vector<DspRegion>* out) const override {
    int64_t extent[kMaxRank];
    KILN_RETURN_IF_ERROR(Box(c.tile[0], c.tile[1], c.tile[2], c.tile[3], extent, nullptr));
    const uint64_t bytes = U(c.tile[2] - c.tile[1]) * Inner(static_cast<size_t>(c.tile[3]));
    out->push_back({c.buf[kBox], bytes, false});
    out->push_back({c.buf[kOut], bytes, true});
    return Status::Ok();
  }

  void Compute(const DspCommand& c, uint8_t* s) const override {
    int64_t extent[kMaxRank] = {}, start[kMaxRank] = {};
    (void)Box(c.tile[0], c.tile[1], c.tile[2], c.tile[3], extent, start);
    const size_t t = static_cast<size_t>(c.tile[3]);
    // Strides of the dense box, in input dim order.
    int64_t box_stride[kMaxRank];
    int64_t st = 1;
    for (size_t d = rank_; d-- > 0;) {
      box_stride[d] = st;
      st *= extent[d];
    }
    // Walk the output block in order: dims < t have extent 1, dim t the range, the rest whole.
    int64_t oext[kMaxRank], step[kMaxRank];
    for (size_t j = 0; j < rank_; ++j) {
      oext[j] = j < t ? 1 : j == t ? c.tile[2] - c.tile[1] : out_[j];
      step[j] = box_stride[perm_[j]];
    }
    const uint8_t* box = s + c.buf[kBox];
    uint8_t* y = s + c.buf[kOut];
    int64_t idx[kMaxRank] = {};
    int64_t src = 0;
    const int64_t total = (c.tile[2] - c.tile[1]) * static_cast<int64_t>(Inner(t));
    for (int64_t e = 0; e < total; ++e) {
      y[e] = box[src];
      for (size_t j = rank_; j-- > 0;) {  // odometer over the output block
        if (++idx[j] < oext[j]) {
          src += step[j];
          break;
        }
        src -= step[j] * (oext[j] - 1);
        idx[j] = 0;
      }
    }
  }

  DspCounters Work(const DspCommand& c) const override {
    DspCounters k;
    k.elem_ops =
        (c.tile[2] - c.tile[1]) * static_cast<int64_t>(Inner(static_cast<size_t>(c.tile[3])));
    return k;
  }

 private:
  static uint64_t U(int64_t v) { return static_cast<uint64_t>(v); }
  // Bytes of one index of output dim t with every later dim whole.
  uint64_t Inner(size_t t) const {
    uint64_t n = 1;
    for (size_t j = t + 1; j < rank_; ++j) n *= U(out_[j]);
    return n;
  }

  // The input box of tile (prefix p, range [a, bnd) of output dim tt): per input dim its
  // extent and start (may be null). Checks the tile.
  Status Box(int64_t p, int64_t a, int64_t bnd, int64_t tt, int64_t* extent, int64_t* start) const {
    if (tt < 0 || tt >= static_cast<int64_t>(rank_)) return InvalidArgument("Transpose tile dim");
    const auto t = static_cast<size_t>(tt);
    int64_t prefixes = 1;
    for (size_t j = 0; j < t; ++j) prefixes *= out_[j];
    if (p < 0 || p >= prefixes || a < 0 || a >= bnd || bnd > out_[t]) {
      return InvalidArgument("Transpose tile outside the output");
    }
    for (size_t d = 0; d < rank_; ++d) {
      extent[d] = in_[d];
      if (start) start[d] = 0;
    }
    int64_t rest = p;
    for (size_t j = t; j-- > 0;) {  // the prefix's index on each output dim before t
      const int64_t i = rest % out_[j];
      rest /= out_[j];
      extent[perm_[j]] = 1;
      if (start) start[perm_[j]] = i;
    }
    extent[perm_[t]] = bnd - a;
    if (start) start[perm_[t]] = a;
    return Status::Ok();
  }

  // DMA commands bringing tile (p, [a, b), t)'s input box into the scratchpad at `at`, dense in
  // input dim order: the dims after the innermost restricted one are whole, so each run of
  // that dim is contiguous; the dim before it becomes the 2-D block's rows; the others loop.
  // Returns the last DMA command.
  int32_t LoadBox(DspProgramBuilder& b, int64_t p, int64_t a, int64_t bnd, size_t t,
                  uint32_t at) const {
    int64_t extent[kMaxRank] = {}, start[kMaxRank] = {};
    (void)Box(p, a, bnd, static_cast<int64_t>(t), extent, start);
    const auto& in_stride = in_stride_;
    size_t inner = 0;  // innermost input dim the box restricts (0 if none)
    for (size_t d = 0; d < rank_; ++d) {
      if (extent[d] != in_[d]) inner = d;
    }
    const uint64_t run = U(extent[inner]) * U(in_stride[inner]);  // contiguous bytes
    const bool has_rows = inner > 0;
    const int64_t rows = has_rows ? extent[inner - 1] : 1;
    const uint64_t row_stride = has_rows ? U(in_stride[inner - 1]) : 0;
    const size_t outer = has_rows ? inner - 1 : 0;  // dims [0, outer) loop
    int64_t count = 1;
    for (size_t d = 0; d < outer; ++d) count *= extent[d];
    uint64_t dst = at;
    int32_t last = -1;
    for (int64_t k = 0; k < count; ++k) {
      uint64_t src = U(start[inner]) * U(in_stride[inner]);
      if (has_rows) src += U(start[inner - 1]) * row_stride;
      int64_t rem = k;
      for (size_t d = outer; d-- > 0;) {
        src += U(start[d] + rem % extent[d]) * U(in_stride[d]);
        rem /= extent[d];
      }
      last = b.DmaIn(0, src, static_cast<uint32_t>(rows), static_cast<uint32_t>(run), row_stride,
                     static_cast<uint32_t>(dst));
      dst += U(rows) * run;
    }
    return last;
  }

  size_t rank_ = 0;
  std::array<size_t, kMaxRank> perm_{};
  std::array<int64_t, kMaxRank> in_{}, out_{}, in_stride_{};
  uint8_t out_slot_ = 0;
};

}  // namespace

Expected<std::unique_ptr<DspOp>> MakeDspTranspose(const Graph& graph, const Node& node) {
  return MakeInitializedDspOp<DspTranspose>(graph, node);
}

}  // namespace kiln
