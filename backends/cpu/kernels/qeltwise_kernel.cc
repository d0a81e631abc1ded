// Elementwise int8 ops on the CPU int8 kernels: QAdd of same-shaped operands (the residual
// adds of quantized CNNs) or of a tensor and a per-run operand (a per-channel bias), QMul of a
// tensor by a per-run factor (squeeze-excite) and per-tensor QuantizeLinear from f32 (a
// quantized model's input). Other broadcasts stay with the reference kernel. Bit-exact with the
// reference kernels; the work is split over the session's pool in 64-element-aligned shares.
#include <algorithm>
#include <array>
#include <optional>
#include <vector>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/tables/int8_table.h"
#include "ir/quant_code.h"
#include "kernels/cpu_features.h"
#include "kernels/reference/broadcast.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::cpu {
namespace {

QType ToQType(DType t) { return t == DType::kU8 ? QType::kU8 : QType::kI8; }

bool ClampInRange(const Node& node, DType out) {
  return ClampWithinCodes(ReadClamp(node.attrs, out), out);
}

// A QAdd of two 8-bit operands to 8-bit codes with its requantization constant and a clamp
// inside the output type (what both fast QAdd kernels need besides their shapes).
bool IsInt8QAdd(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 3 || node.outputs.size() != 1) return false;
  for (ValueId v : node.inputs) {
    if (v == kNoValue) return false;
  }
  const DType y = graph.value(node.outputs[0]).dtype;
  return Is8BitCode(graph.value(node.inputs[0]).dtype) &&
         Is8BitCode(graph.value(node.inputs[1]).dtype) && Is8BitCode(y) &&
         graph.value(node.inputs[2]).is_constant() && ClampInRange(node, y);
}

bool AcceptsQAdd(const Graph& graph, const Node& node) {
  if (!IsInt8QAdd(graph, node)) return false;
  const Shape& y = graph.value(node.outputs[0]).shape;
  return graph.value(node.inputs[0]).shape == y && graph.value(node.inputs[1]).shape == y;
}

// A binary op whose broadcast plan is [runs, run] (or one run) with one operand contiguous
// along the run and across runs (`full`, 0 or 1) and the other constant along each run (one
// factor per run, `factor_stride` elements apart): [N, C, H, W] with [N or 1, C, 1, 1], either
// order, or a scalar. Runs shorter than `min_run` do not count.
struct PerRunBroadcast {
  int full = 0;
  int64_t run = 0, runs = 1, factor_stride = 0;
};
std::optional<PerRunBroadcast> FindPerRunBroadcast(const Shape& y, const Shape& a, const Shape& b,
                                                   int64_t min_run) {
  auto plan = MakeBroadcastPlan(y, {a, b});
  if (!plan.ok()) return std::nullopt;
  const size_t rank = plan->dims.size();
  if (rank == 0 || rank > 2 || plan->dims[rank - 1] < min_run) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const auto& st = plan->strides[static_cast<size_t>(i)];
    const auto& other = plan->strides[static_cast<size_t>(1 - i)];
    if (st[rank - 1] == 1 && (rank == 1 || st[0] == plan->dims[1]) && other[rank - 1] == 0) {
      PerRunBroadcast r;
      r.full = i;
      r.run = plan->dims[rank - 1];
      r.runs = rank == 2 ? plan->dims[0] : 1;
      r.factor_stride = rank == 2 ? other[0] : 0;
      return r;
    }
  }
  return std::nullopt;
}

class QAddCpu : public Kernel {
 public:
  explicit QAddCpu(Isa isa) : isa_(isa) {}
  Status Prepare(const KernelContext& ctx) override {
    k_ = GetInt8Kernels(isa_);
    if (!k_)
      return Unsupported("this CPU cannot run the " + std::string(IsaName(isa_)) + " int8 kernels");
    KILN_ASSIGN_OR_RETURN(std::vector<Requant> rq, ReadRequant(ctx.input(2), 3));
    p_.ra = rq[0];
    p_.rb = rq[1];
    p_.ro = rq[2];
    p_.a_type = ToQType(ctx.input(0).dtype);
    p_.b_type = ToQType(ctx.input(1).dtype);
    p_.out_type = ToQType(ctx.output(0).dtype);
    p_.a_zero = ZeroPointOf(ctx.input(0));
    p_.b_zero = ZeroPointOf(ctx.input(1));
    p_.out_zero = ZeroPointOf(ctx.output(0));
    const QuantClamp c = ReadClamp(ctx.attrs(), ctx.output(0).dtype);
    p_.qmin = c.lo;
    p_.qmax = c.hi;
    n_ = NumElements(ctx.output(0).shape);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const auto* a = static_cast<const uint8_t*>(inputs[0].data);
    const auto* b = static_cast<const uint8_t*>(inputs[1].data);
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    SplitElements(pool_, n_,
                  [&](int64_t s, int64_t e) { k_->add(p_, a + s, b + s, y + s, e - s); });
    return Status::Ok();
  }

 private:
  Isa isa_;
  const Int8Kernels* k_ = nullptr;
  QAddParams p_;
  int64_t n_ = 0;
  ThreadPool* pool_ = nullptr;
};

// QMul where one operand is broadcast over runs of the other (a per-channel factor scaling
// each plane: squeeze-excite): per run one QMulScalarFn call with that factor's centred code.
// Other shapes (same-shaped operands, broadcasts inside a run) go to the reference kernel.
class QMulCpu : public CpuKernelBase {
 public:
  explicit QMulCpu(Isa isa) : CpuKernelBase(isa) {}
  Status Prepare(const KernelContext& ctx) override {
    k_ = GetInt8Kernels(isa_);
    const Value &a = ctx.input(0), &b = ctx.input(1), &y = ctx.output(0);
    const QuantClamp c = ReadClamp(ctx.attrs(), y.dtype);
    if (k_ == nullptr || !Is8BitCode(a.dtype) || !Is8BitCode(b.dtype) || !Is8BitCode(y.dtype) ||
        !ClampWithinCodes(c, y.dtype)) {
      return UseReference(ctx);
    }
    const auto plan = FindPerRunBroadcast(y.shape, a.shape, b.shape, 16);
    if (!plan) return UseReference(ctx);
    const int full = plan->full;
    full_ = full;
    run_ = plan->run;
    runs_ = plan->runs;
    factor_stride_ = plan->factor_stride;
    const Value& f = full == 0 ? b : a;
    const Value& x = full == 0 ? a : b;
    factor_type_ = f.dtype;
    factor_zero_ = ZeroPointOf(f);
    KILN_ASSIGN_OR_RETURN(std::vector<Requant> rq, ReadRequant(ctx.input(2), 1));
    p_.requant = rq[0];
    p_.a_type = ToQType(x.dtype);
    p_.a_zero = ZeroPointOf(x);
    p_.out_type = ToQType(y.dtype);
    p_.out_zero = ZeroPointOf(y);
    p_.qmin = c.lo;
    p_.qmax = c.hi;
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const auto* x = static_cast<const uint8_t*>(inputs[static_cast<size_t>(full_)].data);
    const auto* f = static_cast<const uint8_t*>(inputs[static_cast<size_t>(1 - full_)].data);
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    // Runs in ranges of at least 16K elements per hand-off.
    const int64_t grain = std::max<int64_t>(1, 16384 / run_);
    ParallelOrInline(pool_, runs_, grain, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r) {
        const int32_t code = ByteCode(factor_type_, f[r * factor_stride_]);
        k_->mul_scalar(p_, x + r * run_, code - factor_zero_, y + r * run_, run_);
      }
    });
    return Status::Ok();
  }

 private:
  const Int8Kernels* k_ = nullptr;
  QMulParams p_;
  int full_ = 0;  // the operand read whole (0: A, 1: B); the other gives one factor per run
  int64_t run_ = 0, runs_ = 1, factor_stride_ = 0;
  DType factor_type_ = DType::kU8;
  int32_t factor_zero_ = 0;
  ThreadPool* pool_ = nullptr;
};

// QAdd where one operand is broadcast over runs of the other (a per-channel bias added to a
// plane). With one operand fixed per run the output code is a function of the other's code,
// so each run is a byte map (QMapBytesFn) through a 256-entry table made from the reference's
// arithmetic: the full operand's rescaled codes tabulated at prepare, the factor's added and
// the sum requantized per run (256 entries against runs of at least 256 codes); for a constant
// operand every run's table made at prepare.
bool AcceptsQAddPerRun(const Graph& graph, const Node& node) {
  return IsInt8QAdd(graph, node) &&
         FindPerRunBroadcast(graph.value(node.outputs[0]).shape, graph.value(node.inputs[0]).shape,
                             graph.value(node.inputs[1]).shape, 256)
             .has_value();
}

class QAddPerRunCpu : public Kernel {
 public:
  explicit QAddPerRunCpu(Isa isa) : isa_(isa) {}
  Status Prepare(const KernelContext& ctx) override {
    k_ = GetInt8Kernels(isa_);
    if (!k_)
      return Unsupported("this CPU cannot run the " + std::string(IsaName(isa_)) + " int8 kernels");
    const Value &a = ctx.input(0), &b = ctx.input(1), &y = ctx.output(0);
    const auto plan = FindPerRunBroadcast(y.shape, a.shape, b.shape, 256);
    if (!plan) return Internal("QAdd: not a per-run broadcast");
    plan_ = *plan;
    KILN_ASSIGN_OR_RETURN(std::vector<Requant> rq, ReadRequant(ctx.input(2), 3));
    const Value& full = plan_.full == 0 ? a : b;
    const Value& factor = plan_.full == 0 ? b : a;
    const Requant r_full = rq[static_cast<size_t>(plan_.full)];
    const int32_t z_full = ZeroPointOf(full);
    for (int v = 0; v < 256; ++v) {
      rescaled_[v] = Requantize(
          (ByteCode(full.dtype, static_cast<uint8_t>(v)) - z_full) * (int32_t{1} << kAddLeftShift),
          r_full);
    }
    r_factor_ = rq[static_cast<size_t>(1 - plan_.full)];
    factor_type_ = factor.dtype;
    factor_zero_ = ZeroPointOf(factor);
    ro_ = rq[2];
    out_zero_ = ZeroPointOf(y);
    clamp_ = ReadClamp(ctx.attrs(), y.dtype);
    pool_ = ctx.thread_pool();
    // A constant operand (a bias): every run's table once, here.
    tables_.clear();
    if (factor.is_constant()) {
      const auto* f = static_cast<const uint8_t*>(factor.constant->data());
      tables_.resize(static_cast<size_t>(plan_.runs));
      for (int64_t r = 0; r < plan_.runs; ++r)
        MakeTable(f, r, tables_[static_cast<size_t>(r)].data());
    }
    return Status::Ok();
  }
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const auto* x = static_cast<const uint8_t*>(inputs[static_cast<size_t>(plan_.full)].data);
    const auto* f = static_cast<const uint8_t*>(inputs[static_cast<size_t>(1 - plan_.full)].data);
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    const int64_t grain = std::max<int64_t>(1, 16384 / plan_.run);
    ParallelOrInline(pool_, plan_.runs, grain, [&](int64_t r0, int64_t r1) {
      uint8_t table[256];
      for (int64_t r = r0; r < r1; ++r) {
        const uint8_t* t = table;
        if (tables_.empty()) {
          MakeTable(f, r, table);
        } else {
          t = tables_[static_cast<size_t>(r)].data();
        }
        k_->map_bytes(t, x + r * plan_.run, y + r * plan_.run, plan_.run);
      }
    });
    return Status::Ok();
  }

 private:
  Isa isa_;
  const Int8Kernels* k_ = nullptr;
  PerRunBroadcast plan_;
  // Run r's output code of every byte of the full operand: its rescaled code plus the factor's,
  // requantized (the reference's arithmetic).
  void MakeTable(const uint8_t* f, int64_t r, uint8_t* table) const {
    const int32_t fv =
        Requantize((ByteCode(factor_type_, f[r * plan_.factor_stride]) - factor_zero_) *
                       (int32_t{1} << kAddLeftShift),
                   r_factor_);
    for (int v = 0; v < 256; ++v) {
      table[v] = static_cast<uint8_t>(
          RequantizeToOutput(WrappingAdd(rescaled_[v], fv), ro_, out_zero_, clamp_.lo, clamp_.hi));
    }
  }

  int32_t rescaled_[256] = {};                    // the full operand's codes, rescaled (by byte)
  std::vector<std::array<uint8_t, 256>> tables_;  // per run, where the factor is a constant
  Requant r_factor_, ro_;
  DType factor_type_ = DType::kU8;
  int32_t factor_zero_ = 0, out_zero_ = 0;
  QuantClamp clamp_;
  ThreadPool* pool_ = nullptr;
};

bool AcceptsQuantize(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue) {
    return false;
  }
  const Value& x = graph.value(node.inputs[0]);
  const Value& y = graph.value(node.outputs[0]);
  if (x.dtype != DType::kF32 || !Is8BitCode(y.dtype) ||
      NumElements(graph.value(node.inputs[1]).shape) != 1) {
    return false;
  }
  if (node.inputs.size() > 2 && node.inputs[2] != kNoValue) {
    const Value& z = graph.value(node.inputs[2]);
    if (z.dtype != y.dtype || NumElements(z.shape) != 1) return false;
  }
  return graph.value(node.inputs[1]).dtype == DType::kF32;
}

class QuantizeCpu : public Kernel {
 public:
  explicit QuantizeCpu(Isa isa) : isa_(isa) {}
  Status Prepare(const KernelContext& ctx) override {
    k_ = GetInt8Kernels(isa_);
    if (!k_)
      return Unsupported("this CPU cannot run the " + std::string(IsaName(isa_)) + " int8 kernels");
    out_ = ToQType(ctx.output(0).dtype);
    has_zero_ = ctx.has_input(2);
    n_ = NumElements(ctx.input(0).shape);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const float scale = inputs[1].as<const float>()[0];
    int32_t zero = 0;
    if (has_zero_) {
      zero = out_ == QType::kU8 ? static_cast<const uint8_t*>(inputs[2].data)[0]
                                : static_cast<const int8_t*>(inputs[2].data)[0];
    }
    const float* x = inputs[0].as<const float>();
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    SplitElements(pool_, n_, [&](int64_t s, int64_t e) {
      k_->quantize(x + s, e - s, scale, zero, out_, y + s);
    });
    return Status::Ok();
  }

 private:
  Isa isa_;
  const Int8Kernels* k_ = nullptr;
  QType out_ = QType::kU8;
  bool has_zero_ = false;
  int64_t n_ = 0;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterQEltwiseInt8(KernelRegistry& r) {
  RegisterCpuInt8Codes<QMulCpu>(r, OpType::kQMul);
  KernelTraits add;
  add.accepts = AcceptsQAdd;
  KernelTraits add_per_run;
  add_per_run.accepts = AcceptsQAddPerRun;
  KernelTraits quantize;
  quantize.accepts = AcceptsQuantize;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512Vnni}) {
    for (DType t : {DType::kU8, DType::kI8}) {
      r.Register(
          KernelKey{OpType::kQAdd, kExecutorCpu, t, Layout::kPlain, isa},
          [isa] { return std::make_unique<QAddCpu>(isa); }, add);
      r.Register(
          KernelKey{OpType::kQAdd, kExecutorCpu, t, Layout::kPlain, isa},
          [isa] { return std::make_unique<QAddPerRunCpu>(isa); }, add_per_run);
    }
    r.Register(
        KernelKey{OpType::kQuantizeLinear, kExecutorCpu, DType::kF32, Layout::kPlain, isa},
        [isa] { return std::make_unique<QuantizeCpu>(isa); }, quantize);
  }
}

}  // namespace kiln::cpu
