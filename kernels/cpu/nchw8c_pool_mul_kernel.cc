// The squeeze-excite ops of a blocked region (compiler/passes/blocked_layout.cc): a
// GlobalAveragePool reading NCHW8c and writing the plain [N, C, 1, 1] means, and a Mul of an
// NCHW8c tensor by such a per-channel vector (or by a tensor of its own shape), writing NCHW8c.
// Portable loops over a block's 8 lanes (the compiler vectorises them); both are bound by
// memory. A [N, C, 1, 1] vector with C a multiple of 8 has the same bytes in both layouts
// (LayoutsShareBytes), so the means need no Reorder on their way to the Mul.
#include "ir/layout.h"
#include "kernels/cpu/cpu_kernels.h"

namespace kiln::cpu {
namespace {

constexpr int64_t B = kNCHWcBlock;

bool IsF32Rank4(const Value& v) { return v.dtype == DType::kF32 && v.shape.size() == 4; }

bool AcceptsPool(const Graph& graph, const Node& node) {
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
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    const float scale = plane_ > 0 ? 1.f / static_cast<float>(plane_) : 0.f;
    for (int64_t nb = 0; nb < batch_ * blocks_; ++nb) {
      const float* xb = x + nb * plane_ * B;
      float acc[B] = {};
      for (int64_t p = 0; p < plane_; ++p) {
        for (int64_t l = 0; l < B; ++l) acc[l] += xb[p * B + l];
      }
      // Plain [N, C, 1, 1]: block nb's channels are the 8 after nb * 8.
      for (int64_t l = 0; l < B; ++l) y[nb * B + l] = acc[l] * scale;
    }
    return Status::Ok();
  }

 private:
  int64_t batch_ = 0, blocks_ = 0, plane_ = 0;
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

}  // namespace

void RegisterNCHW8cPoolMul(KernelRegistry& r) {
  KernelTraits pool;
  pool.accepts = AcceptsPool;
  pool.data_layout = Layout::kNCHW8c;
  r.Register(
      KernelKey{OpType::kGlobalAveragePool, ExecutorKind::kCpu, DType::kF32, Layout::kPlain,
                Isa::kScalar},
      [] { return std::make_unique<GlobalAveragePoolNCHW8c>(); }, pool);
  KernelTraits mul;
  mul.accepts = AcceptsMul;
  mul.data_layout = Layout::kNCHW8c;
  r.Register(
      KernelKey{OpType::kMul, ExecutorKind::kCpu, DType::kF32, Layout::kNCHW8c, Isa::kScalar},
      [] { return std::make_unique<MulNCHW8c>(); }, mul);
}

}  // namespace kiln::cpu
