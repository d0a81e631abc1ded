// Gemm / FusedGemm, MatMul and Softmax on OpenCL (cl/linear.cl). Gemm weights are constant
// and bound at setup as [N, K] (transposed there when transB = 0); C is expanded to its rows.
#include <algorithm>

#include "backends/opencl/kernels/cl_kernel.h"
#include "backends/opencl/kernels/opencl_kernels.h"
#include "ir/activation.h"

namespace kiln::opencl {
namespace {

size_t Pow2AtMost(size_t v, size_t cap) {
  size_t p = 1;
  while (p * 2 <= v && p * 2 <= cap) p *= 2;
  return p;
}

bool AcceptsGemm(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n) || n.inputs.size() < 2 || !g.value(n.inputs[1]).is_constant()) {
    return false;
  }
  if (n.inputs.size() > 2 && n.inputs[2] != kNoValue && !g.value(n.inputs[2]).is_constant()) {
    return false;
  }
  return n.attrs.GetInt("transA", 0) == 0 && g.value(n.inputs[1]).shape.size() == 2;
}

class GemmCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    Shape a = ctx.input(0).shape;
    if (ctx.node().op == OpType::kFusedGemm) {
      const int64_t axis = ctx.attrs().GetInt("a_flatten_axis", 1);
      if (axis < 1 || axis >= static_cast<int64_t>(a.size())) {
        return InvalidArgument("FusedGemm a_flatten_axis out of range");
      }
      a = {NumElements(Shape(a.begin(), a.begin() + axis)),
           NumElements(Shape(a.begin() + axis, a.end()))};
    }
    if (a.size() != 2) return InvalidArgument("Gemm A must be 2-D");
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    trans_b_ = ctx.attrs().GetInt("transB", 0) != 0;
    alpha_ = ctx.attrs().GetFloat("alpha", 1.f);
    beta_ = ctx.attrs().GetFloat("beta", 1.f);
    const Shape& b = ctx.input(1).shape;
    m_ = static_cast<int>(a[0]);
    k_ = static_cast<int>(a[1]);
    n_ = static_cast<int>(trans_b_ ? b[0] : b[1]);
    if ((trans_b_ ? b[1] : b[0]) != k_) return InvalidArgument("Gemm inner dimensions differ");
    b_ = &ctx.input(1);
    c_ = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    return Status::Ok();
  }

  Status Setup(ClEnv& env) override {
    KILN_ASSIGN_OR_RETURN(std::vector<float> b, ConstantFloats(*b_));
    std::vector<float> w(static_cast<size_t>(n_) * static_cast<size_t>(k_));
    for (int n = 0; n < n_; ++n) {
      for (int k = 0; k < k_; ++k) {
        w[static_cast<size_t>(n) * k_ + k] =
            trans_b_ ? b[static_cast<size_t>(n) * k_ + k] : b[static_cast<size_t>(k) * n_ + n];
      }
    }
    KILN_ASSIGN_OR_RETURN(weights_, UploadStorage(env, w));
    // beta * C broadcast to [c_rows, N] (c_rows 1 or M).
    std::vector<float> c;
    if (c_) {
      KILN_ASSIGN_OR_RETURN(std::vector<float> raw, ConstantFloats(*c_));
      Shape cs = c_->shape;
      while (cs.size() < 2) cs.insert(cs.begin(), 1);
      if ((cs[0] != 1 && cs[0] != m_) || (cs[1] != 1 && cs[1] != n_)) {
        return InvalidArgument("Gemm C does not broadcast to [M, N]");
      }
      c_rows_ = static_cast<int>(cs[0]);
      c.resize(static_cast<size_t>(c_rows_) * n_);
      for (int i = 0; i < c_rows_; ++i) {
        for (int j = 0; j < n_; ++j) {
          c[static_cast<size_t>(i) * n_ + j] =
              beta_ * raw[static_cast<size_t>(i) * static_cast<size_t>(cs[1]) +
                          (cs[1] == 1 ? 0 : static_cast<size_t>(j))];
        }
      }
    } else {
      c.assign(1, 0.f);
    }
    KILN_ASSIGN_OR_RETURN(c_buf_, UploadBytes(env, c.data(), c.size() * sizeof(float)));
    local_ = Pow2AtMost(static_cast<size_t>(k_), std::min<size_t>(128, env.max_work_group_size()));
    local_ = std::max<size_t>(local_, 32);
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel("gemm_rows"));
    return Status::Ok();
  }

  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0])).Mem(weights_.get()).Mem(c_buf_.get()).I32(c_rows_).Tensor(T(out[0]));
      a.I32(m_).I32(n_).I32(k_).F32(alpha_).I32(static_cast<int>(act_.kind)).F32(act_.alpha);
      a.F32(act_.beta).Local(local_ * sizeof(float));
      KILN_RETURN_IF_ERROR(a.status("gemm_rows"));
    }
    const size_t global[2] = {local_ * static_cast<size_t>(n_), static_cast<size_t>(m_)};
    const size_t local[2] = {local_, 1};
    return launch.Run(kernel_.get(), 2, global, local);
  }

 private:
  ActivationParams act_;
  bool trans_b_ = false;
  float alpha_ = 1.f, beta_ = 1.f;
  int m_ = 0, n_ = 0, k_ = 0, c_rows_ = 0;
  size_t local_ = 64;
  const Value* b_ = nullptr;
  const Value* c_ = nullptr;
  ClBuffer weights_, c_buf_;
  ClKernelObject kernel_;
};

// MatMul of rank >= 2 operands with numpy batch broadcasting; a constant operand is bound at
// setup.
bool AcceptsMatMul(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n) || n.inputs.size() != 2) return false;
  return g.value(n.inputs[0]).shape.size() >= 2 && g.value(n.inputs[1]).shape.size() >= 2;
}

class MatMulCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& a = ctx.input(0).shape;
    const Shape& b = ctx.input(1).shape;
    const Shape& y = ctx.output(0).shape;
    m_ = static_cast<int>(a[a.size() - 2]);
    k_ = static_cast<int>(a.back());
    n_ = static_cast<int>(b.back());
    if (b[b.size() - 2] != k_) return InvalidArgument("MatMul inner dimensions differ");
    // Element offsets of each output batch's A and B matrices.
    const size_t batch_rank = y.size() - 2;
    const int64_t batches = NumElements(Shape(y.begin(), y.end() - 2));
    auto strides = [&](const Shape& s) {
      std::vector<int64_t> st(batch_rank, 0);
      int64_t step = static_cast<int64_t>(s[s.size() - 2] * s.back());
      for (size_t i = 0; i + 2 < s.size(); ++i) {
        const size_t d = s.size() - 3 - i;     // operand batch dim
        const size_t yd = batch_rank - 1 - i;  // output batch dim
        st[yd] = s[d] == 1 ? 0 : step;
        step *= s[d];
      }
      return st;
    };
    const auto as = strides(a), bs = strides(b);
    offsets_.clear();
    for (int64_t i = 0; i < batches; ++i) {
      int64_t rem = i, ao = 0, bo = 0;
      for (size_t d = batch_rank; d-- > 0;) {
        const int64_t idx = rem % y[d];
        rem /= y[d];
        ao += idx * as[d];
        bo += idx * bs[d];
      }
      offsets_.push_back(static_cast<cl_int>(ao));
      offsets_.push_back(static_cast<cl_int>(bo));
    }
    batches_ = static_cast<int>(batches);
    consts_[0] = ctx.input(0).is_constant() ? &ctx.input(0) : nullptr;
    consts_[1] = ctx.input(1).is_constant() ? &ctx.input(1) : nullptr;
    return Status::Ok();
  }

  Status Setup(ClEnv& env) override {
    for (int i = 0; i < 2; ++i) {
      if (!consts_[i]) continue;
      KILN_ASSIGN_OR_RETURN(std::vector<float> v, ConstantFloats(*consts_[i]));
      KILN_ASSIGN_OR_RETURN(const_buf_[i], UploadStorage(env, v));
      const_tensor_[i] = ClTensor{const_buf_[i].get(), 0, 0, 0};
    }
    KILN_ASSIGN_OR_RETURN(offsets_buf_,
                          UploadBytes(env, offsets_.data(), offsets_.size() * sizeof(cl_int)));
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel("matmul_tiled"));
    return Status::Ok();
  }

  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(consts_[0] ? &const_tensor_[0] : T(in[0]));
      a.Tensor(consts_[1] ? &const_tensor_[1] : T(in[1]));
      a.Tensor(T(out[0])).Mem(offsets_buf_.get()).I32(m_).I32(n_).I32(k_);
      KILN_RETURN_IF_ERROR(a.status("matmul_tiled"));
    }
    const size_t global[3] = {static_cast<size_t>((n_ + 15) / 16 * 16),
                              static_cast<size_t>((m_ + 15) / 16 * 16),
                              static_cast<size_t>(batches_)};
    const size_t local[3] = {16, 16, 1};
    return launch.Run(kernel_.get(), 3, global, local);
  }

 private:
  int m_ = 0, n_ = 0, k_ = 0, batches_ = 0;
  std::vector<cl_int> offsets_;
  const Value* consts_[2] = {nullptr, nullptr};
  ClBuffer const_buf_[2], offsets_buf_;
  ClTensor const_tensor_[2];
  ClKernelObject kernel_;
};

class SoftmaxCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& s = ctx.input(0).shape;
    int64_t axis = ctx.attrs().GetInt("axis", -1);
    if (axis < 0) axis += static_cast<int64_t>(s.size());
    if (axis < 0 || axis >= static_cast<int64_t>(s.size())) return InvalidArgument("axis");
    outer_ = NumElements(Shape(s.begin(), s.begin() + axis));
    len_ = s[static_cast<size_t>(axis)];
    inner_ = NumElements(Shape(s.begin() + axis + 1, s.end()));
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    local_ =
        Pow2AtMost(static_cast<size_t>(len_), std::min<size_t>(256, env.max_work_group_size()));
    local_ = std::max<size_t>(local_, 32);
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel("softmax_rows"));
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0]))
          .Tensor(T(out[0]))
          .I32(static_cast<int>(len_))
          .I32(static_cast<int>(inner_));
      a.Local(local_ * sizeof(float));
      KILN_RETURN_IF_ERROR(a.status("softmax_rows"));
    }
    const size_t global = local_ * static_cast<size_t>(outer_ * inner_);
    return launch.Run(kernel_.get(), 1, &global, &local_);
  }

 private:
  int64_t outer_ = 1, len_ = 1, inner_ = 1;
  size_t local_ = 64;
  ClKernelObject kernel_;
};

template <typename K>
std::unique_ptr<Kernel> Make() {
  return std::make_unique<K>();
}

}  // namespace

void RegisterOpenClLinearKernels(KernelRegistry& r) {
  KernelTraits gemm;
  gemm.accepts = AcceptsGemm;
  gemm.any_weight_layout = true;  // bound at setup, any layout
  for (OpType op : {OpType::kGemm, OpType::kFusedGemm}) {
    r.Register({op, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL}, Make<GemmCl>,
               gemm);
  }
  KernelTraits matmul;
  matmul.accepts = AcceptsMatMul;
  r.Register({OpType::kMatMul, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL},
             Make<MatMulCl>, matmul);
  KernelTraits softmax;
  softmax.accepts = OpenClTensorsOk;
  r.Register({OpType::kSoftmax, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL},
             Make<SoftmaxCl>, softmax);
}

}  // namespace kiln::opencl
