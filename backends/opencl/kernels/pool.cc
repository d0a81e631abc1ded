// Pooling on OpenCL (cl/pool.cl): 2-D MaxPool / AveragePool, the global pools, and
// ReduceMean / ReduceMax over a block of contiguous axes.
#include <algorithm>

#include "backends/opencl/kernels/cl_kernel.h"
#include "backends/opencl/kernels/opencl_kernels.h"
#include "ir/ops/reduce_axes.h"
#include "ir/ops/window_geometry.h"

namespace kiln::opencl {
namespace {

bool AcceptsPool2d(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n) || g.value(n.inputs[0]).shape.size() != 4) return false;
  if (n.outputs.size() > 1 && n.outputs[1] != kNoValue) return false;  // MaxPool Indices
  return true;
}

class Pool2dCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    const Shape& y = ctx.output(0).shape;
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> kernel, PoolKernelShape(ctx.attrs(), 2));
    KILN_ASSIGN_OR_RETURN(
        WindowGeometry geo,
        ResolveWindow(ctx.attrs(), {x[2], x[3]}, kernel, ctx.attrs().GetInt("ceil_mode", 0) != 0));
    is_max_ = ctx.node().op == OpType::kMaxPool;
    include_pad_ = !is_max_ && ctx.attrs().GetInt("count_include_pad", 0) != 0;
    const int64_t v[] = {x[2],
                         x[3],
                         y[2],
                         y[3],
                         kernel[0],
                         kernel[1],
                         geo.strides[0],
                         geo.strides[1],
                         geo.pads_begin[0],
                         geo.pads_begin[1],
                         geo.pads_end[0],
                         geo.pads_end[1],
                         geo.dilations[0],
                         geo.dilations[1]};
    for (size_t i = 0; i < 14; ++i) p_[i] = static_cast<int>(v[i]);
    planes_ = static_cast<size_t>(x[0] * x[1]);
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel("pool2d"));
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0])).Tensor(T(out[0]));
      for (int v : p_) a.I32(v);
      a.I32(is_max_).I32(include_pad_);
      KILN_RETURN_IF_ERROR(a.status("pool2d"));
    }
    const size_t local[3] = {16, 4, 1};
    const size_t global[3] = {static_cast<size_t>((p_[3] + 15) / 16 * 16),
                              static_cast<size_t>((p_[2] + 3) / 4 * 4), planes_};
    return launch.Run(kernel_.get(), 3, global, local);
  }

 private:
  int p_[14] = {};  // H W OH OW KH KW SH SW PH PW PHE PWE DH DW
  bool is_max_ = false, include_pad_ = false;
  size_t planes_ = 0;
  ClKernelObject kernel_;
};

// [outer, len, inner] view of a reduction over a block of contiguous axes; false otherwise.
bool ReductionBlock(const Graph& g, const Node& n, int64_t* outer, int64_t* len, int64_t* inner) {
  const Shape& x = g.value(n.inputs[0]).shape;
  std::vector<bool> reduced(x.size(), false);
  if (n.op == OpType::kGlobalAveragePool || n.op == OpType::kGlobalMaxPool) {
    if (x.size() < 3) return false;
    for (size_t d = 2; d < x.size(); ++d) reduced[d] = true;
  } else {
    std::vector<int64_t> axes;
    const bool has_axes = n.inputs.size() > 1 && n.inputs[1] != kNoValue;
    if (has_axes) {
      const Value& v = g.value(n.inputs[1]);
      if (!v.is_constant() || (v.dtype != DType::kI64 && v.dtype != DType::kI32)) return false;
      for (int64_t i = 0; i < v.num_elements(); ++i) {
        axes.push_back(v.dtype == DType::kI32 ? v.constant->as<int32_t>()[i]
                                              : v.constant->as<int64_t>()[i]);
      }
    }
    auto r = ResolveReduceAxes(n.attrs, has_axes ? &axes : nullptr, static_cast<int64_t>(x.size()));
    if (!r.ok()) return false;
    reduced = *r;
  }
  size_t first = x.size(), last = 0;
  for (size_t d = 0; d < x.size(); ++d) {
    if (!reduced[d]) continue;
    first = std::min(first, d);
    last = d;
  }
  if (first == x.size()) return false;
  for (size_t d = first; d <= last; ++d) {
    if (!reduced[d] && x[d] != 1) return false;
  }
  *outer = NumElements(Shape(x.begin(), x.begin() + static_cast<int64_t>(first)));
  *len = NumElements(
      Shape(x.begin() + static_cast<int64_t>(first), x.begin() + static_cast<int64_t>(last) + 1));
  *inner = NumElements(Shape(x.begin() + static_cast<int64_t>(last) + 1, x.end()));
  return *len > 0;
}

bool AcceptsReduce(const Graph& g, const Node& n) {
  int64_t o, l, i;
  if (!OpenClTensorsOk(g, n) || !ReductionBlock(g, n, &o, &l, &i)) return false;
  // Max over a middle axis has no kernel (only rows); mean has both.
  const bool is_max = n.op == OpType::kReduceMax || n.op == OpType::kGlobalMaxPool;
  return !(is_max && i != 1);
}

class ReduceCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    if (!ReductionBlock(ctx.graph(), ctx.node(), &outer_, &len_, &inner_)) {
      return Unsupported("reduction over non-contiguous axes");
    }
    is_max_ = ctx.node().op == OpType::kReduceMax || ctx.node().op == OpType::kGlobalMaxPool;
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    size_t l = 32;
    while (l * 2 <= static_cast<size_t>(len_) &&
           l * 2 <= std::min<size_t>(256, env.max_work_group_size())) {
      l *= 2;
    }
    local_ = l;
    KILN_ASSIGN_OR_RETURN(kernel_,
                          env.CreateKernel(inner_ == 1 ? "reduce_rows" : "reduce_mid_mean"));
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0])).Tensor(T(out[0])).I32(static_cast<int>(len_));
      if (inner_ == 1) {
        a.I32(is_max_).Local(local_ * sizeof(float));
      } else {
        a.I32(static_cast<int>(inner_));
      }
      KILN_RETURN_IF_ERROR(a.status("reduce"));
    }
    if (inner_ == 1) {
      const size_t global = local_ * static_cast<size_t>(outer_);
      return launch.Run(kernel_.get(), 1, &global, &local_);
    }
    const size_t global[2] = {static_cast<size_t>((inner_ + 63) / 64 * 64),
                              static_cast<size_t>(outer_)};
    const size_t local[2] = {64, 1};
    return launch.Run(kernel_.get(), 2, global, local);
  }

 private:
  int64_t outer_ = 1, len_ = 1, inner_ = 1;
  bool is_max_ = false;
  size_t local_ = 64;
  ClKernelObject kernel_;
};

template <typename K>
std::unique_ptr<Kernel> Make() {
  return std::make_unique<K>();
}

}  // namespace

void RegisterOpenClPoolKernels(KernelRegistry& r) {
  KernelTraits pool;
  pool.accepts = AcceptsPool2d;
  for (OpType op : {OpType::kMaxPool, OpType::kAveragePool}) {
    r.Register({op, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL}, Make<Pool2dCl>,
               pool);
  }
  KernelTraits reduce;
  reduce.accepts = AcceptsReduce;
  for (OpType op : {OpType::kGlobalAveragePool, OpType::kGlobalMaxPool, OpType::kReduceMean,
                    OpType::kReduceMax}) {
    r.Register({op, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL}, Make<ReduceCl>,
               reduce);
  }
}

}  // namespace kiln::opencl
