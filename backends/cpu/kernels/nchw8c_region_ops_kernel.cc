// The other ops of a blocked region (compiler/passes/blocked_layout.cc): the squeeze-excite
// pair, a GlobalAveragePool reading NCHW8c and writing the plain [N, C, 1, 1] means and a Mul
// of an NCHW8c tensor by such a per-channel vector (or by a tensor of its own shape); MaxPool
// and AveragePool over NCHW8c (CpuKernels::nchw8c_pool, every flavour); and the channel
// Concat of NCHW8c tensors whose channel counts are multiples of 8, which is their images'
// bytes end to end (the memory planner usually elides it: ir/plan_rules.h). The
// squeeze-excite loops are portable over a block's 8 lanes (the compiler vectorises them);
// they are bound by memory. A [N, C, 1, 1] vector with C a multiple of 8 has the same bytes in
// both layouts (LayoutsShareBytes), so the means need no Reorder on their way to the Mul.
#include <cstring>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "ir/layout.h"

namespace kiln::cpu {
namespace {

constexpr int64_t B = kNCHWcBlock;

bool IsF32Rank4(const Value& v) { return v.dtype == DType::kF32 && v.shape.size() == 4; }

bool AcceptsGlobalPool(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 1 || node.inputs[0] == kNoValue) return false;
  const Value& x = graph.value(node.inputs[0]);
  return IsF32Rank4(x) && x.shape[1] % B == 0;
}

class GlobalAveragePoolNCHW8c : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    if (ctx.input(0).layout != Layout::kNCHW8c || x.size() != 4 || x[1] % B != 0) {
      return Internal("GlobalAveragePool over NCHW8c bound to another input");
    }
    batch_ = x[0], blocks_ = x[1] / B, plane_ = x[2] * x[3];
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    const float scale = plane_ > 0 ? 1.f / static_cast<float>(plane_) : 0.f;
    auto blocks = [&](int64_t b0, int64_t b1) {
      for (int64_t nb = b0; nb < b1; ++nb) {
        const float* xb = x + nb * plane_ * B;
        float acc[B] = {};
        for (int64_t p = 0; p < plane_; ++p) {
          for (int64_t l = 0; l < B; ++l) acc[l] += xb[p * B + l];
        }
        // Plain [N, C, 1, 1]: block nb's channels are the 8 after nb * 8.
        for (int64_t l = 0; l < B; ++l) y[nb * B + l] = acc[l] * scale;
      }
    };
    // Over the pool where the tensor is worth splitting (squeezenet's 1000 x 13 x 13 means
    // took as long at two threads as at one).
    const bool split = batch_ * blocks_ * plane_ * B >= kSplitFloats;
    ParallelOrInline(split ? pool_ : nullptr, batch_ * blocks_, 1, blocks);
    return Status::Ok();
  }

 private:
  static constexpr int64_t kSplitFloats = 16384;
  int64_t batch_ = 0, blocks_ = 0, plane_ = 0;
  ThreadPool* pool_ = nullptr;
};

// Which input of a blocked Mul is the full tensor; -1 when neither fits.
int FullInput(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue ||
      node.outputs.empty()) {
    return -1;
  }
  const Value& a = graph.value(node.inputs[0]);
  const Value& b = graph.value(node.inputs[1]);
  const Shape& y = graph.value(node.outputs[0]).shape;
  if (!IsF32Rank4(a) || !IsF32Rank4(b) || y.size() != 4 || y[1] % B != 0) return -1;
  auto per_channel = [&](const Shape& s) {
    return s[0] == y[0] && s[1] == y[1] && s[2] == 1 && s[3] == 1;
  };
  if (a.shape == y && (b.shape == y || per_channel(b.shape))) return 0;
  if (b.shape == y && per_channel(a.shape)) return 1;
  return -1;
}

bool AcceptsMul(const Graph& graph, const Node& node) { return FullInput(graph, node) >= 0; }

class MulNCHW8c : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    full_ = FullInput(ctx.graph(), ctx.node());
    if (full_ < 0) return Internal("Mul over NCHW8c bound to other shapes");
    const Shape& y = ctx.output(0).shape;
    const Shape& other = ctx.input(1 - full_).shape;
    batch_ = y[0], blocks_ = y[1] / B, plane_ = y[2] * y[3];
    per_channel_ = other != y;
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const float* x = inputs[full_].as<const float>();
    const float* s = inputs[1 - full_].as<const float>();
    float* y = outputs[0].as<float>();
    const int64_t n = batch_ * blocks_ * plane_ * B;
    if (!per_channel_) {
      for (int64_t i = 0; i < n; ++i) y[i] = x[i] * s[i];
      return Status::Ok();
    }
    for (int64_t nb = 0; nb < batch_ * blocks_; ++nb) {
      float sv[B];
      for (int64_t l = 0; l < B; ++l) sv[l] = s[nb * B + l];
      const float* xb = x + nb * plane_ * B;
      float* yb = y + nb * plane_ * B;
      for (int64_t p = 0; p < plane_; ++p) {
        for (int64_t l = 0; l < B; ++l) yb[p * B + l] = xb[p * B + l] * sv[l];
      }
    }
    return Status::Ok();
  }

 private:
  int full_ = 0;
  bool per_channel_ = false;
  int64_t batch_ = 0, blocks_ = 0, plane_ = 0;
};

// The window of a MaxPool / AveragePool the NCHW8c pools run: rank 4, channels a multiple of
// 8, one output, undilated, pads not negative.
std::optional<PoolWindow2d> BlockedPoolWindow(const Graph& graph, const Node& node) {
  if (node.inputs.size() != 1 || node.inputs[0] == kNoValue) return std::nullopt;
  const Value& x = graph.value(node.inputs[0]);
  if (!IsF32Rank4(x) || x.shape[1] % B != 0) return std::nullopt;
  auto w = ResolvePoolWindow2d(node.attrs, x.shape, node.outputs.size());
  if (!w.ok() || !*w || w->value().pad_top < 0 || w->value().pad_left < 0) return std::nullopt;
  return **w;
}

bool AcceptsBlockedPool(const Graph& graph, const Node& node) {
  return BlockedPoolWindow(graph, node).has_value();
}

class PoolNCHW8c : public Kernel {
 public:
  PoolNCHW8c(Isa isa, bool is_max) : isa_(isa), is_max_(is_max) {}

  Status Prepare(const KernelContext& ctx) override {
    auto window = BlockedPoolWindow(ctx.graph(), ctx.node());
    if (!window || ctx.input(0).layout != Layout::kNCHW8c ||
        ctx.output(0).layout != Layout::kNCHW8c) {
      return Internal("NCHW8c pool bound to another input or output");
    }
    static_cast<PoolWindow2d&>(p_) = *window;
    p_.is_max = is_max_;
    p_.count_include_pad = ctx.attrs().GetInt("count_include_pad", 0) != 0;
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    const Shape& x = ctx.input(0).shape;
    planes_ = x[0] * (x[1] / B);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    const int64_t in_plane = p_.in_h * p_.in_w * B, out_plane = p_.out_h * p_.out_w * B;
    auto body = [&](int64_t b, int64_t e) {
      kernels_->nchw8c_pool(p_, x + b * in_plane, y + b * out_plane, e - b);
    };
    ParallelOrInline(pool_, planes_, 1, body);
    return Status::Ok();
  }

 private:
  Isa isa_;
  bool is_max_;
  PoolParams p_;
  const CpuKernels* kernels_ = nullptr;
  int64_t planes_ = 0;
  ThreadPool* pool_ = nullptr;
};

// A channel Concat of rank-4 f32 tensors, each with a multiple of 8 channels: in NCHW8c each
// image of the output is the inputs' images end to end.
bool AcceptsConcat(const Graph& graph, const Node& node) {
  if (node.outputs.size() != 1 || node.outputs[0] == kNoValue || node.inputs.empty()) {
    return false;
  }
  const Value& y = graph.value(node.outputs[0]);
  int64_t axis = node.attrs.GetInt("axis", 0);
  if (!IsF32Rank4(y) || !NormalizeAxis(axis, 4) || axis != 1) return false;
  for (ValueId in : node.inputs) {
    if (in == kNoValue || !IsF32Rank4(graph.value(in)) || graph.value(in).shape[1] % B != 0) {
      return false;
    }
  }
  return true;
}

class ConcatNCHW8c : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    if (!AcceptsConcat(ctx.graph(), ctx.node())) return Internal("NCHW8c Concat of other shapes");
    batch_ = ctx.output(0).shape[0];
    image_.clear();
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      const Shape& s = ctx.input(i).shape;
      image_.push_back(s[1] * s[2] * s[3]);
    }
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    float* y = outputs[0].as<float>();
    for (int64_t n = 0; n < batch_; ++n) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const int64_t len = image_[i];
        std::memcpy(y, inputs[i].as<const float>() + n * len,
                    static_cast<size_t>(len) * sizeof(float));
        y += len;
      }
    }
    return Status::Ok();
  }

 private:
  int64_t batch_ = 0;
  std::vector<int64_t> image_;  // floats of one image of each input
};

}  // namespace

void RegisterNCHW8cRegionOps(KernelRegistry& r) {
  KernelTraits gap;
  gap.accepts = AcceptsGlobalPool;
  gap.data_layout = Layout::kNCHW8c;
  r.Register(
      KernelKey{OpType::kGlobalAveragePool, kExecutorCpu, DType::kF32, Layout::kPlain,
                Isa::kScalar},
      [] { return std::make_unique<GlobalAveragePoolNCHW8c>(); }, gap);
  KernelTraits mul;
  mul.accepts = AcceptsMul;
  mul.data_layout = Layout::kNCHW8c;
  r.Register(
      KernelKey{OpType::kMul, kExecutorCpu, DType::kF32, Layout::kNCHW8c, Isa::kScalar},
      [] { return std::make_unique<MulNCHW8c>(); }, mul);
  KernelTraits pool;
  pool.accepts = AcceptsBlockedPool;
  pool.data_layout = Layout::kNCHW8c;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    for (bool is_max : {true, false}) {
      r.Register(
          KernelKey{is_max ? OpType::kMaxPool : OpType::kAveragePool, kExecutorCpu, DType::kF32,
                    Layout::kNCHW8c, isa},
          [isa, is_max] { return std::make_unique<PoolNCHW8c>(isa, is_max); }, pool);
    }
  }
  KernelTraits concat;
  concat.accepts = AcceptsConcat;
  concat.data_layout = Layout::kNCHW8c;
  r.Register(
      KernelKey{OpType::kConcat, kExecutorCpu, DType::kF32, Layout::kNCHW8c, Isa::kScalar},
      [] { return std::make_unique<ConcatNCHW8c>(); }, concat);
}

}  // namespace kiln::cpu
