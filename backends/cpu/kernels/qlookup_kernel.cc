// Int8 ops whose output code is a function of one input code, as 256-entry byte maps
// (QMapBytesFn: VBMI permutes, else a table loop): QLookup of 8-bit codes (SiLU, sigmoid, ...
// tables the compiler made) and QConcat, each input's requantization to the output's
// parameters tabulated once at prepare (an input already in them is copied). Bit-exact with
// the reference kernels by construction: each table entry is the reference's arithmetic on
// that code. i16 codes go to the reference kernels.
#include <algorithm>
#include <array>
#include <cstring>
#include <vector>

#include "ir/quant_code.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/tables/int8_table.h"
#include "kernels/reference/quantized_util.h"
#include "kernels/requantize.h"

namespace kiln::cpu {
namespace {

class QLookupCpu : public CpuKernelBase {
 public:
  explicit QLookupCpu(Isa isa) : CpuKernelBase(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    const DType in = ctx.input(0).dtype, out = ctx.output(0).dtype;
    k_ = GetInt8Kernels(isa_);
    if (k_ == nullptr || !Is8BitCode(in) || !Is8BitCode(out)) return UseReference(ctx);
    // The schema guarantees 256 codes of the output's type; entry c + 128 for an i8 code c,
    // i.e. the byte of c with its top bit flipped.
    const auto* t = static_cast<const uint8_t*>(ctx.input(1).constant->data());
    const int flip = in == DType::kI8 ? 0x80 : 0;
    for (int b = 0; b < 256; ++b) table_[b] = t[b ^ flip];
    n_ = NumElements(ctx.output(0).shape);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const auto* x = static_cast<const uint8_t*>(inputs[0].data);
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    SplitElements(pool_, n_,
                  [&](int64_t s, int64_t e) { k_->map_bytes(table_, x + s, y + s, e - s); });
    return Status::Ok();
  }

 private:
  const Int8Kernels* k_ = nullptr;
  uint8_t table_[256] = {};
  int64_t n_ = 0;
  ThreadPool* pool_ = nullptr;
};

class QConcatCpu : public CpuKernelBase {
 public:
  explicit QConcatCpu(Isa isa) : CpuKernelBase(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    const size_t n = ctx.num_inputs() - 1;
    const Value& yv = ctx.output(0);
    k_ = GetInt8Kernels(isa_);
    bool fits = k_ != nullptr && Is8BitCode(yv.dtype);
    for (size_t i = 0; i < n; ++i) fits = fits && Is8BitCode(ctx.input(i).dtype);
    if (!fits) return UseReference(ctx);
    int64_t axis = ctx.attrs().GetInt("axis", 0);
    if (!NormalizeAxis(axis, static_cast<int64_t>(yv.shape.size()))) {
      return InvalidArgument("QConcat axis out of range");
    }
    KILN_ASSIGN_OR_RETURN(std::vector<Requant> rq,
                          ReadRequant(ctx.input(n), static_cast<int64_t>(n)));
    const int32_t zy = ZeroPointOf(yv), lo = QuantCodeMin(yv.dtype), hi = QuantCodeMax(yv.dtype);
    tables_.assign(n, {});
    copy_.assign(n, false);
    for (size_t i = 0; i < n; ++i) {
      const Value& x = ctx.input(i);
      const int32_t zx = ZeroPointOf(x);
      bool identity = true;
      for (int b = 0; b < 256; ++b) {
        const int32_t v =
            RequantizeToOutput(ByteCode(x.dtype, static_cast<uint8_t>(b)) - zx, rq[i], zy, lo, hi);
        tables_[i][b] = static_cast<uint8_t>(v);
        identity = identity && tables_[i][b] == b;
      }
      copy_[i] = identity;
    }
    // The output as runs, in order: for each index of the axes before `axis`, each input's
    // block (its extent from `axis` on).
    const int64_t outer = NumElements(Shape(yv.shape.begin(), yv.shape.begin() + axis));
    runs_.clear();
    int64_t at = 0;
    for (int64_t o = 0; o < outer; ++o) {
      for (size_t i = 0; i < n; ++i) {
        const Shape& s = ctx.input(i).shape;
        const int64_t block = NumElements(Shape(s.begin() + axis, s.end()));
        if (block > 0) runs_.push_back({i, o * block, at, block});
        at += block;
      }
    }
    total_ = at;
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    // Output bytes [s, e) of every run that overlaps them (runs are in output order).
    SplitElements(pool_, total_, [&](int64_t s, int64_t e) {
      auto r = std::upper_bound(runs_.begin(), runs_.end(), s,
                                [](int64_t v, const Run& run) { return v < run.dst; });
      if (r != runs_.begin()) --r;
      for (; r != runs_.end() && r->dst < e; ++r) {
        const int64_t b = std::max(s, r->dst), end = std::min(e, r->dst + r->len);
        if (end <= b) continue;
        const auto* x = static_cast<const uint8_t*>(inputs[r->input].data) + r->src + (b - r->dst);
        if (copy_[r->input]) {
          std::memcpy(y + b, x, static_cast<size_t>(end - b));
        } else {
          k_->map_bytes(tables_[r->input].data(), x, y + b, end - b);
        }
      }
    });
    return Status::Ok();
  }

 private:
  struct Run {
    size_t input;
    int64_t src, dst, len;  // input element offset, output element offset, length
  };
  const Int8Kernels* k_ = nullptr;
  std::vector<std::array<uint8_t, 256>> tables_;
  std::vector<bool> copy_;
  std::vector<Run> runs_;
  int64_t total_ = 0;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterQLookupInt8(KernelRegistry& r) {
  RegisterCpuInt8Codes<QLookupCpu>(r, OpType::kQLookup);
  RegisterCpuInt8Codes<QConcatCpu>(r, OpType::kQConcat);
}

}  // namespace kiln::cpu
