// Elementwise ONNX ops (f32, plain layout) on the CPU fast kernels: the activations (Relu,
// LeakyRelu, Clip, Sigmoid, Tanh, HardSigmoid, HardSwish), Add/Sub/Mul/Div with the broadcasts
// CNNs use (same shape, scalar, per-channel [C,1,1], trailing rows), inference
// BatchNormalization as a per-channel affine map, Softmax/LogSoftmax over the last axes, and
// Concat. Anything else goes to the reference kernels.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"
#include "kernels/thread_pool.h"

namespace kiln::cpu {
namespace {

constexpr int64_t kElementGrain = 16384;

class UnaryCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    const Attributes& a = ctx.attrs();
    switch (ctx.node().op) {
      case OpType::kRelu:
        act_.kind = Activation::kRelu;
        break;
      case OpType::kSigmoid:
        act_.kind = Activation::kSigmoid;
        break;
      case OpType::kTanh:
        act_.kind = Activation::kTanh;
        break;
      case OpType::kHardSwish:
        act_.kind = Activation::kHardSwish;
        break;
      case OpType::kLeakyRelu:
        act_ = {Activation::kLeakyRelu, a.GetFloat("alpha", 0.01f), 0.f};
        break;
      case OpType::kHardSigmoid:
        act_ = {Activation::kHardSigmoid, a.GetFloat("alpha", 0.2f), a.GetFloat("beta", 0.5f)};
        break;
      case OpType::kClip: {
        // Bounds are optional scalar inputs; a non-constant one needs the reference kernel.
        act_ = {Activation::kClip, std::numeric_limits<float>::lowest(),
                std::numeric_limits<float>::max()};
        for (size_t i = 1; i <= 2; ++i) {
          if (!ctx.has_input(i)) continue;
          const Value& b = ctx.input(i);
          if (!b.is_constant() || b.dtype != DType::kF32 || b.num_elements() != 1) {
            return UseReference(ctx);
          }
          (i == 1 ? act_.alpha : act_.beta) = b.constant->as<float>()[0];
        }
        break;
      }
      default:
        return UseReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    n_ = ctx.input(0).num_elements();
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    ParallelOrInline(pool_, n_, kElementGrain,
                     [&](int64_t b, int64_t e) { kernels_->activate(x + b, y + b, e - b, act_); });
    return Status::Ok();
  }

 private:
  ActivationParams act_;
  const CpuKernels* kernels_ = nullptr;
  int64_t n_ = 0;
  ThreadPool* pool_ = nullptr;
};

// How one operand of a broadcast binary op maps output index i to its own index, for the
// patterns handled here. `block` is a product of trailing output dims.
struct Operand {
  enum Kind { kFull, kTrailing, kLeading } kind = kFull;
  int64_t block = 1;  // kTrailing: i / block; kLeading: i % block
};

// Classifies `s` (right-aligned against `out`) as full, trailing-broadcast ([A, B, 1, 1]) or
// leading-broadcast ([1, 1, C, D]); false for anything else.
bool Classify(const Shape& s, const Shape& out, Operand* op) {
  const size_t r = out.size();
  Shape a(r, 1);
  std::copy(s.begin(), s.end(), a.begin() + static_cast<std::ptrdiff_t>(r - s.size()));
  if (a == out) {
    op->kind = Operand::kFull;
    return true;
  }
  // Trailing: a[d] == out[d] for d < k, 1 after.
  size_t k = 0;
  while (k < r && a[k] == out[k]) ++k;
  bool ones = true;
  for (size_t d = k; d < r; ++d) ones = ones && a[d] == 1;
  if (ones) {
    op->kind = Operand::kTrailing;
    op->block = 1;
    for (size_t d = k; d < r; ++d) op->block *= out[d];
    return true;
  }
  // Leading: 1 for d < k, a[d] == out[d] after.
  k = 0;
  while (k < r && a[k] == 1) ++k;
  for (size_t d = k; d < r; ++d) {
    if (a[d] != out[d]) return false;
  }
  op->kind = Operand::kLeading;
  op->block = 1;
  for (size_t d = k; d < r; ++d) op->block *= out[d];
  return true;
}

class BinaryCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    switch (ctx.node().op) {
      case OpType::kAdd:
        op_ = BinaryOp::kAdd;
        break;
      case OpType::kSub:
        op_ = BinaryOp::kSub;
        break;
      case OpType::kMul:
        op_ = BinaryOp::kMul;
        break;
      case OpType::kDiv:
        op_ = BinaryOp::kDiv;
        break;
      default:
        return UseReference(ctx);
    }
    const Shape& out = ctx.output(0).shape;
    if (ctx.input(0).dtype != DType::kF32 || ctx.input(1).dtype != DType::kF32 ||
        !Classify(ctx.input(0).shape, out, &a_) || !Classify(ctx.input(1).shape, out, &b_)) {
      return UseReference(ctx);
    }
    n_ = NumElements(out);
    // Within chunks of `chunk_` outputs every operand is contiguous or one value.
    chunk_ = n_;
    for (const Operand* o : {&a_, &b_}) {
      if (o->kind != Operand::kFull) chunk_ = std::min(chunk_, o->block);
    }
    if (n_ > 0 && chunk_ < 4) return UseReference(ctx);  // a call per element or two: no gain
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const float* a = inputs[0].as<const float>();
    const float* b = inputs[1].as<const float>();
    float* y = outputs[0].as<float>();
    ParallelOrInline(pool_, n_, kElementGrain, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end;) {
        const int64_t stop = std::min(end, (i / chunk_ + 1) * chunk_);
        bool a_scalar, b_scalar;
        const float* ap = Locate(a, a_, i, &a_scalar);
        const float* bp = Locate(b, b_, i, &b_scalar);
        kernels_->binary(op_, ap, a_scalar, bp, b_scalar, y + i, stop - i);
        i = stop;
      }
    });
    return Status::Ok();
  }

 private:
  static const float* Locate(const float* base, const Operand& o, int64_t i, bool* scalar) {
    *scalar = o.kind == Operand::kTrailing;
    switch (o.kind) {
      case Operand::kFull:
        return base + i;
      case Operand::kTrailing:
        return base + i / o.block;
      case Operand::kLeading:
        return base + i % o.block;
    }
    return base;
  }

  BinaryOp op_ = BinaryOp::kAdd;
  Operand a_, b_;
  int64_t n_ = 0, chunk_ = 1;
  const CpuKernels* kernels_ = nullptr;
  ThreadPool* pool_ = nullptr;
};

// Inference BatchNormalization: y = x * a + b per channel with a = scale / sqrt(var + eps) and
// b = bias - mean * a, computed exactly as the reference kernel does (same bits).
class BatchNormCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    bool constant = ctx.num_inputs() == 5;
    for (size_t i = 1; constant && i < 5; ++i) {
      constant =
          ctx.has_input(i) && ctx.input(i).is_constant() && ctx.input(i).dtype == DType::kF32;
    }
    if (!constant || x.size() < 2 || ctx.attrs().GetInt("training_mode", 0) != 0 ||
        ctx.num_outputs() > 1) {
      return UseReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    batch_ = x[0];
    channels_ = x[1];
    inner_ = NumElements(x) / std::max<int64_t>(1, batch_ * channels_);
    const float eps = ctx.attrs().GetFloat("epsilon", 1e-5f);
    const float* scale = ctx.input(1).constant->as<float>();
    const float* bias = ctx.input(2).constant->as<float>();
    const float* mean = ctx.input(3).constant->as<float>();
    const float* var = ctx.input(4).constant->as<float>();
    a_.resize(static_cast<size_t>(channels_));
    b_.resize(static_cast<size_t>(channels_));
    for (int64_t c = 0; c < channels_; ++c) {
      a_[c] = scale[c] / std::sqrt(var[c] + eps);
      b_[c] = bias[c] - mean[c] * a_[c];
    }
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    const int64_t planes = batch_ * channels_;
    const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, inner_));
    ParallelOrInline(pool_, planes, grain, [&](int64_t p0, int64_t p1) {
      for (int64_t p = p0; p < p1; ++p) {
        const int64_t c = p % channels_;
        kernels_->affine(x + p * inner_, a_[c], b_[c], y + p * inner_, inner_);
      }
    });
    return Status::Ok();
  }

 private:
  const CpuKernels* kernels_ = nullptr;
  int64_t batch_ = 0, channels_ = 0, inner_ = 0;
  std::vector<float> a_, b_;
  ThreadPool* pool_ = nullptr;
};

// Softmax / LogSoftmax (opset 13: over one axis) when the axis is last or followed only by
// 1-sized dims, so each softmax is one contiguous row.
class SoftmaxCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    const Shape& s = ctx.input(0).shape;
    int64_t axis = ctx.attrs().GetInt("axis", -1);
    if (!NormalizeAxis(axis, static_cast<int64_t>(s.size()))) return UseReference(ctx);
    for (size_t d = static_cast<size_t>(axis) + 1; d < s.size(); ++d) {
      if (s[d] != 1) return UseReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    log_ = ctx.node().op == OpType::kLogSoftmax;
    row_ = s.empty() ? 1 : s[static_cast<size_t>(axis)];
    rows_ = row_ ? NumElements(s) / row_ : 0;
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    const int64_t grain = std::max<int64_t>(1, kElementGrain / std::max<int64_t>(1, row_));
    ParallelOrInline(pool_, rows_, grain, [&](int64_t r0, int64_t r1) {
      kernels_->softmax(x + r0 * row_, y + r0 * row_, r1 - r0, row_, log_);
    });
    return Status::Ok();
  }

 private:
  const CpuKernels* kernels_ = nullptr;
  bool log_ = false;
  int64_t rows_ = 0, row_ = 0;
  ThreadPool* pool_ = nullptr;
};

// Concat: per outer index, each input's contiguous slab copied into place.
class ConcatCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    const Shape& out = ctx.output(0).shape;
    int64_t axis = ctx.attrs().GetInt("axis", 0);
    if (!NormalizeAxis(axis, static_cast<int64_t>(out.size()))) return UseReference(ctx);
    outer_ = 1;
    for (int64_t d = 0; d < axis; ++d) outer_ *= out[static_cast<size_t>(d)];
    out_inner_ = outer_ ? NumElements(out) / outer_ : 0;
    slabs_.clear();
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i) || ctx.input(i).dtype != DType::kF32) return UseReference(ctx);
      slabs_.push_back(outer_ ? ctx.input(i).num_elements() / outer_ : 0);
    }
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    float* y = outputs[0].as<float>();
    // Work items: (outer index, input) pairs, each one memcpy.
    const int64_t k = static_cast<int64_t>(slabs_.size());
    const int64_t grain =
        std::max<int64_t>(1, kElementGrain * k / std::max<int64_t>(1, out_inner_));
    ParallelOrInline(pool_, outer_ * k, grain, [&](int64_t b, int64_t e) {
      for (int64_t w = b; w < e; ++w) {
        const int64_t o = w / k, i = w % k;
        int64_t offset = 0;
        for (int64_t j = 0; j < i; ++j) offset += slabs_[static_cast<size_t>(j)];
        const int64_t len = slabs_[static_cast<size_t>(i)];
        if (len == 0) continue;
        std::memcpy(y + o * out_inner_ + offset, inputs[i].as<const float>() + o * len,
                    static_cast<size_t>(len) * sizeof(float));
      }
    });
    return Status::Ok();
  }

 private:
  int64_t outer_ = 0, out_inner_ = 0;
  std::vector<int64_t> slabs_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterCpuEltwiseKernels(KernelRegistry& r) {
  for (OpType op : {OpType::kRelu, OpType::kLeakyRelu, OpType::kClip, OpType::kSigmoid,
                    OpType::kTanh, OpType::kHardSigmoid, OpType::kHardSwish}) {
    RegisterCpuF32<UnaryCpu>(r, op);
  }
  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv}) {
    RegisterCpuF32<BinaryCpu>(r, op);
  }
  RegisterCpuF32<BatchNormCpu>(r, OpType::kBatchNormalization);
  RegisterCpuF32<SoftmaxCpu>(r, OpType::kSoftmax);
  RegisterCpuF32<SoftmaxCpu>(r, OpType::kLogSoftmax);
  RegisterCpuF32<ConcatCpu>(r, OpType::kConcat);
}

}  // namespace kiln::cpu
