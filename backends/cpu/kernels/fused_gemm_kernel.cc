// FusedGemm (y = act(alpha * A * B' + beta * C)) on the CPU fast kernels, at every CPU flavour
// including the portable one (so a file packed for AVX-512 runs anywhere):
// - transB (the [N, K] weight of a Linear layer): B in the compiler's Block16O layout, each
//   row of A a matrix-vector product streaming B's 16-output blocks;
//   A MatMul's [K, N] weight with one row of A (a batch-1 classifier) is taken here too:
//   pack-weights transposes it to [N, K] before packing, and streaming 16-output blocks beats
//   the plain matrix-vector loop, which reads [K, N] a strip of columns at a time over every
//   row (mobilenetv2's 1280 -> 1000 classifier: 0.87 -> 0.47 ms);
// - no transB (a MatMul's [K, N] weight), several rows of A, alpha = beta = 1: B read in its
//   plain row-major layout, which is already what the packed GEMM wants (nothing to pack,
//   nothing repacked).
// transA, f16 B and C shapes other than a row, a scalar or [M, N] are left to the reference
// kernel (its weights then stay plain: only accepting kernels are packed for).
#include <algorithm>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/kernels/fully_connected.h"
#include "ir/layout.h"

namespace kiln::cpu {
namespace {

struct GemmShape {
  int64_t m = 0, k = 0, n = 0;
  int64_t c_ld = 0;  // 0: C is a row (or scalar), n: C is [M, N]
  bool c_scalar = false;
};

// The A/C shapes both kernels take, for B stored as [N, K] (trans_b) or [K, N].
Expected<GemmShape> Shapes(const Graph& graph, const Node& node, bool trans_b) {
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue) {
    return Unsupported("inputs");
  }
  const Value& a = graph.value(node.inputs[0]);
  const Value& b = graph.value(node.inputs[1]);
  const Attributes& at = node.attrs;
  if (a.dtype != DType::kF32 || b.dtype != DType::kF32 || !b.is_constant() || b.shape.size() != 2 ||
      at.GetInt("transA", 0) != 0 || (at.GetInt("transB", 0) != 0) != trans_b) {
    return Unsupported("needs f32 A, a constant f32 B, no transA");
  }
  const int64_t axis = at.GetInt("a_flatten_axis", 1);
  if (axis < 1 || axis >= static_cast<int64_t>(a.shape.size())) return Unsupported("axis");
  GemmShape s;
  s.m = NumElements(Shape(a.shape.begin(), a.shape.begin() + axis));
  s.k = NumElements(Shape(a.shape.begin() + axis, a.shape.end()));
  s.n = trans_b ? b.shape[0] : b.shape[1];
  if ((trans_b ? b.shape[1] : b.shape[0]) != s.k) return Unsupported("inner dimensions");
  if (node.inputs.size() > 2 && node.inputs[2] != kNoValue) {
    const Value& c = graph.value(node.inputs[2]);
    const int64_t cn = c.num_elements();
    if (c.dtype != DType::kF32) return Unsupported("C dtype");
    if (cn == 1) {
      s.c_scalar = true;
    } else if (cn == s.n && (c.shape.size() == 1 || c.shape[0] == 1)) {
      s.c_ld = 0;
    } else if (c.shape.size() == 2 && c.shape[0] == s.m && c.shape[1] == s.n) {
      s.c_ld = s.n;
    } else {
      return Unsupported("C shape");
    }
  }
  return s;
}

bool AcceptsBlock16(const Graph& graph, const Node& node) {
  if (Shapes(graph, node, true).ok()) return true;
  // [K, N] with one row of A: packed as [N, K] (pack-weights transposes it first).
  const auto plain = Shapes(graph, node, false);
  return plain.ok() && plain->m == 1;
}

bool AcceptsPlain(const Graph& graph, const Node& node) {
  return Shapes(graph, node, false).ok() && node.attrs.GetFloat("alpha", 1.f) == 1.f &&
         node.attrs.GetFloat("beta", 1.f) == 1.f;
}

class FusedGemmCpu : public Kernel {
 public:
  explicit FusedGemmCpu(Isa isa) : isa_(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    if (ctx.input(1).layout != Layout::kBlock16O) {
      return Internal("FusedGemm kernel bound to weights not in block16o");
    }
    KILN_ASSIGN_OR_RETURN(s_, Shapes(ctx.graph(), ctx.node(), true));
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    alpha_ = ctx.attrs().GetFloat("alpha", 1.f);
    beta_ = ctx.attrs().GetFloat("beta", 1.f);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const float* a = inputs[0].as<const float>();
    const float* w = inputs[1].as<const float>();
    const float* c = inputs.size() > 2 ? inputs[2].as<const float>() : nullptr;
    float* y = outputs[0].as<float>();
    // Work items: (row, 64-column chunk); a chunk is four 16-output blocks.
    constexpr int64_t kChunk = 64;
    const int64_t chunks = (s_.n + kChunk - 1) / kChunk;
    auto body = [&](int64_t i0, int64_t i1) {
      for (int64_t i = i0; i < i1; ++i) {
        const int64_t row = i / chunks, j0 = (i % chunks) * kChunk;
        const int64_t cols = std::min(kChunk, s_.n - j0);
        const float* cr = c ? (s_.c_scalar ? c : c + row * s_.c_ld + j0) : nullptr;
        kernels_->gemv_block16(s_.k, a + row * s_.k, w + j0 * s_.k, cols, alpha_, cr, s_.c_scalar,
                               beta_, y + row * s_.n + j0, act_);
      }
    };
    const int64_t items = s_.m * chunks;
    if (pool_ && pool_->num_threads() > 1 && items > 1) {
      pool_->ParallelFor(items, body);
    } else {
      body(0, items);
    }
    return Status::Ok();
  }

 private:
  Isa isa_;
  GemmShape s_;
  ActivationParams act_;
  float alpha_ = 1.f, beta_ = 1.f;
  const CpuKernels* kernels_ = nullptr;
  ThreadPool* pool_ = nullptr;
};

// B plain [K, N]: FullyConnected (matrix-vector for one row, packed GEMM otherwise), C as the
// epilogue's row or matrix (a scalar C is widened to a row once).
class FusedGemmPlainCpu : public Kernel {
 public:
  explicit FusedGemmPlainCpu(Isa isa) : isa_(isa) {}

  Status Prepare(const KernelContext& ctx) override {
    if (ctx.input(1).layout != Layout::kPlain) {
      return Internal("FusedGemm kernel bound to packed weights");
    }
    KILN_ASSIGN_OR_RETURN(s_, Shapes(ctx.graph(), ctx.node(), false));
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    KILN_ASSIGN_OR_RETURN(const CpuKernels* kernels, KernelsForIsa(isa_));
    fc_ = FullyConnected(s_.m, s_.k, s_.n, false, *kernels);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }
  size_t ScratchBytes() const override {
    return fc_.ScratchBytes() + (s_.c_scalar ? static_cast<size_t>(s_.n) * sizeof(float) : 0);
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    const float* c = inputs.size() > 2 ? inputs[2].as<const float>() : nullptr;
    float* fc_scratch = static_cast<float*>(scratch);
    if (c && s_.c_scalar) {
      float* row = fc_scratch + fc_.ScratchBytes() / sizeof(float);
      std::fill(row, row + s_.n, c[0]);
      c = row;
    }
    fc_.Run(inputs[0].as<const float>(), inputs[1].as<const float>(), c, s_.c_ld, act_,
            outputs[0].as<float>(), scratch, pool_);
    return Status::Ok();
  }

 private:
  Isa isa_;
  GemmShape s_;
  ActivationParams act_;
  FullyConnected fc_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterFusedGemmBlock16(KernelRegistry& r) {
  KernelTraits block16;
  block16.accepts = AcceptsBlock16;
  block16.packing = WeightPacking{1, Layout::kBlock16O};
  KernelTraits plain;
  plain.accepts = AcceptsPlain;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512}) {
    const KernelKey key{OpType::kFusedGemm, kExecutorCpu, DType::kF32, Layout::kPlain, isa};
    r.Register(
        key, [isa] { return std::make_unique<FusedGemmCpu>(isa); }, block16);
    r.Register(
        key, [isa] { return std::make_unique<FusedGemmPlainCpu>(isa); }, plain);
  }
}

}  // namespace kiln::cpu
