// Plain Gemm and MatMul (f32) with a constant B on the CPU fast kernels, for graphs run without
// the compiler's fusion (which makes them FusedGemm): the adapter packs B (alpha folded in)
// and beta * C into a private copy once in Prepare(); a non-constant B, C shapes other than a
// row / a full M x N matrix / a scalar, or MatMul with a batched B go to the reference kernels.
#include <vector>

#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/kernels/fully_connected.h"

namespace kiln::cpu {
namespace {

class GemmCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    const bool matmul = ctx.node().op == OpType::kMatMul;
    const Shape& a = ctx.input(0).shape;
    const Value& b = ctx.input(1);
    if (!b.is_constant() || b.dtype != DType::kF32 || b.shape.size() != 2 || a.size() < 2 ||
        ctx.input(0).dtype != DType::kF32) {
      return UseReference(ctx);
    }
    bool trans_a = false, trans_b = false;
    float alpha = 1.f, beta = 1.f;
    if (matmul) {
      k_ = a.back();
      m_ = NumElements(a) / std::max<int64_t>(1, k_);
    } else {
      if (a.size() != 2) return UseReference(ctx);
      trans_a = ctx.attrs().GetInt("transA", 0) != 0;
      trans_b = ctx.attrs().GetInt("transB", 0) != 0;
      alpha = ctx.attrs().GetFloat("alpha", 1.f);
      beta = ctx.attrs().GetFloat("beta", 1.f);
      m_ = trans_a ? a[1] : a[0];
      k_ = trans_a ? a[0] : a[1];
    }
    n_ = trans_b ? b.shape[0] : b.shape[1];
    if ((trans_b ? b.shape[1] : b.shape[0]) != k_) return UseReference(ctx);
    // C: a row of N, a full M x N matrix or a scalar; constant unless beta is 1.
    c_ld_ = 0;
    c_input_ = false;
    if (!matmul && ctx.has_input(2)) {
      const Value& c = ctx.input(2);
      const int64_t cn = c.num_elements();
      const bool row = cn == n_ && (c.shape.size() <= 1 || c.shape[0] == 1);
      const bool full = c.shape.size() == 2 && c.shape[0] == m_ && c.shape[1] == n_ && m_ > 1;
      if (c.dtype != DType::kF32 || !(row || full || cn == 1)) return UseReference(ctx);
      if (c.is_constant()) {
        const float* cv = c.constant->as<float>();
        c_.assign(static_cast<size_t>(cn == 1 ? n_ : cn), 0.f);
        for (size_t i = 0; i < c_.size(); ++i) c_[i] = beta * cv[cn == 1 ? 0 : i];
        c_ld_ = full ? n_ : 0;
      } else if (beta == 1.f && !(cn == 1 && n_ > 1)) {
        c_input_ = true;
        c_ld_ = full ? n_ : 0;
      } else {
        return UseReference(ctx);
      }
    }
    KILN_ASSIGN_OR_RETURN(const CpuKernels* kernels, KernelsForIsa(isa_));
    b_ = PackGemmB(b.constant->as<float>(), k_, n_, trans_b, alpha);
    fc_ = FullyConnected(m_, k_, n_, trans_a, *kernels);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  size_t FastScratchBytes() const override { return fc_.ScratchBytes(); }
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void* scratch) override {
    const float* c = c_input_ ? inputs[2].as<const float>() : (c_.empty() ? nullptr : c_.data());
    fc_.Run(inputs[0].as<const float>(), b_.data(), c, c_ld_, ActivationParams{},
            outputs[0].as<float>(), scratch, pool_);
    return Status::Ok();
  }

 private:
  int64_t m_ = 0, k_ = 0, n_ = 0, c_ld_ = 0;
  bool c_input_ = false;
  std::vector<float> b_, c_;
  FullyConnected fc_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterCpuGemmKernels(KernelRegistry& r) {
  RegisterCpuF32<GemmCpu>(r, OpType::kGemm);
  RegisterCpuF32<GemmCpu>(r, OpType::kMatMul);
}

}  // namespace kiln::cpu
