// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool (f32, plain layout) on the CPU
// fast kernels; shapes the vector kernels do not cover (3-D, dilations, horizontal stride
// above 2, windows wider than 7, MaxPool's Indices output) go to the reference kernels.
#include <algorithm>

#include "ir/ops/window_geometry.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"

namespace kiln::cpu {
namespace {

// Runs fn(begin, end) over plane ranges, inline without a pool.
template <typename F>
void ForPlanes(ThreadPool* pool, int64_t planes, int64_t work_per_plane, F&& fn) {
  const int64_t grain = std::max<int64_t>(1, 16384 / std::max<int64_t>(1, work_per_plane));
  if (pool) {
    pool->ParallelFor(planes, fn, grain);
  } else {
    fn(0, planes);
  }
}

class PoolCpu : public CpuKernelBase {
 public:
  PoolCpu(Isa isa, bool is_max) : CpuKernelBase(isa), is_max_(is_max) {}

  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    KILN_ASSIGN_OR_RETURN(auto window, ResolvePoolWindow2d(ctx));
    if (!window || ctx.output(0).shape.size() != x.size()) return UseReference(ctx);
    static_cast<PoolWindow2d&>(p_) = *window;
    p_.is_max = is_max_;
    p_.count_include_pad = ctx.attrs().GetInt("count_include_pad", 0) != 0;
    if (p_.stride_w > 2 || p_.kernel_w > 7 || p_.in_w > kPoolMaxWidth || p_.out_w > kPoolMaxWidth ||
        p_.pad_left < 0 || p_.pad_top < 0) {
      return UseReference(ctx);
    }
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    planes_ = x[0] * x[1];
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    const int64_t in_plane = p_.in_h * p_.in_w, out_plane = p_.out_h * p_.out_w;
    ForPlanes(pool_, planes_, out_plane * p_.kernel_h * p_.kernel_w, [&](int64_t b, int64_t e) {
      kernels_->pool(p_, x + b * in_plane, y + b * out_plane, e - b);
    });
    return Status::Ok();
  }

 private:
  bool is_max_;
  PoolParams p_;
  const CpuKernels* kernels_ = nullptr;
  int64_t planes_ = 0;
  ThreadPool* pool_ = nullptr;
};

class GlobalPoolCpu : public CpuKernelBase {
 public:
  GlobalPoolCpu(Isa isa, bool is_max) : CpuKernelBase(isa), is_max_(is_max) {}

  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    if (x.size() < 3) return UseReference(ctx);
    KILN_ASSIGN_OR_RETURN(kernels_, KernelsForIsa(isa_));
    planes_ = x[0] * x[1];
    size_ = NumElements(x) / std::max<int64_t>(1, planes_);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void*) override {
    const float* x = inputs[0].as<const float>();
    float* y = outputs[0].as<float>();
    ForPlanes(pool_, planes_, size_, [&](int64_t b, int64_t e) {
      kernels_->global_pool(x + b * size_, y + b, e - b, size_, is_max_);
    });
    return Status::Ok();
  }

 private:
  bool is_max_;
  const CpuKernels* kernels_ = nullptr;
  int64_t planes_ = 0, size_ = 0;
  ThreadPool* pool_ = nullptr;
};

template <bool kMax>
class MaxOrAvgPoolCpu : public PoolCpu {
 public:
  explicit MaxOrAvgPoolCpu(Isa isa) : PoolCpu(isa, kMax) {}
};
template <bool kMax>
class GlobalMaxOrAvgPoolCpu : public GlobalPoolCpu {
 public:
  explicit GlobalMaxOrAvgPoolCpu(Isa isa) : GlobalPoolCpu(isa, kMax) {}
};

}  // namespace

void RegisterCpuPoolKernels(KernelRegistry& r) {
  RegisterCpuF32<MaxOrAvgPoolCpu<true>>(r, OpType::kMaxPool);
  RegisterCpuF32<MaxOrAvgPoolCpu<false>>(r, OpType::kAveragePool);
  RegisterCpuF32<GlobalMaxOrAvgPoolCpu<true>>(r, OpType::kGlobalMaxPool);
  RegisterCpuF32<GlobalMaxOrAvgPoolCpu<false>>(r, OpType::kGlobalAveragePool);
}

}  // namespace kiln::cpu
