// Elementwise ops on OpenCL (cl/eltwise.cl): binary ops with numpy broadcasting (dims
// collapsed on the host), unary ops and activations, inference BatchNormalization as a
// per-channel affine. Kernels read element i before writing it, so in-place plans are safe.
#include <cmath>
#include <limits>

#include "backends/opencl/kernels/cl_kernel.h"
#include "backends/opencl/kernels/opencl_kernels.h"
#include "ir/activation.h"

namespace kiln::opencl {
namespace {

constexpr int kMaxRank = 6;

int BinaryCode(OpType op) {
  switch (op) {
    case OpType::kAdd:
      return 0;
    case OpType::kSub:
      return 1;
    case OpType::kMul:
      return 2;
    case OpType::kDiv:
      return 3;
    case OpType::kPow:
      return 4;
    case OpType::kMax:
      return 5;
    default:
      return 6;  // Min
  }
}

// Output dims and each operand's strides (0 where broadcast), adjacent dims merged when both
// operands allow; false past kMaxRank.
bool BroadcastGeometry(const Shape& y, const Shape& a, const Shape& b, std::vector<int>* geo,
                       bool* same) {
  const size_t r = y.size();
  auto strides = [&](const Shape& s) {
    std::vector<int64_t> st(r, 0);
    int64_t step = 1;
    for (size_t i = 0; i < s.size(); ++i) {
      const size_t d = s.size() - 1 - i, yd = r - 1 - i;
      st[yd] = s[d] == 1 ? 0 : step;
      step *= s[d];
    }
    return st;
  };
  std::vector<int64_t> dims(y.begin(), y.end()), sa = strides(a), sb = strides(b);
  *same = a == y && b == y;
  // Merge dim d into d - 1 where both operands are contiguous (or broadcast) across them.
  for (size_t d = dims.size(); d-- > 1;) {
    if (sa[d - 1] == sa[d] * dims[d] && sb[d - 1] == sb[d] * dims[d]) {
      dims[d - 1] *= dims[d];
      sa[d - 1] = sa[d];
      sb[d - 1] = sb[d];
      dims.erase(dims.begin() + static_cast<int64_t>(d));
      sa.erase(sa.begin() + static_cast<int64_t>(d));
      sb.erase(sb.begin() + static_cast<int64_t>(d));
    }
  }
  if (dims.empty()) dims = {1}, sa = {0}, sb = {0};
  if (dims.size() > kMaxRank) return false;
  geo->assign(1 + 3 * kMaxRank, 0);
  (*geo)[0] = static_cast<int>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    (*geo)[1 + d] = static_cast<int>(dims[d]);
    (*geo)[1 + kMaxRank + d] = static_cast<int>(sa[d]);
    (*geo)[1 + 2 * kMaxRank + d] = static_cast<int>(sb[d]);
  }
  return true;
}

bool AcceptsBinary(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n) || n.inputs.size() != 2) return false;
  for (ValueId in : n.inputs) {
    if (in == kNoValue || g.value(in).dtype != DType::kF32) return false;
  }
  std::vector<int> geo;
  bool same = false;
  return BroadcastGeometry(g.value(n.outputs[0]).shape, g.value(n.inputs[0]).shape,
                           g.value(n.inputs[1]).shape, &geo, &same);
}

class BinaryCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    op_ = BinaryCode(ctx.node().op);
    if (!BroadcastGeometry(ctx.output(0).shape, ctx.input(0).shape, ctx.input(1).shape, &geo_,
                           &same_)) {
      return Unsupported("broadcast rank above 6");
    }
    total_ = static_cast<int>(ctx.output(0).num_elements());
    for (int i = 0; i < 2; ++i) consts_[i] = ctx.input(i).is_constant() ? &ctx.input(i) : nullptr;
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    for (int i = 0; i < 2; ++i) {
      if (!consts_[i]) continue;
      KILN_ASSIGN_OR_RETURN(std::vector<float> v, ConstantFloats(*consts_[i]));
      KILN_ASSIGN_OR_RETURN(const_buf_[i], UploadStorage(env, v));
      const_tensor_[i] = ClTensor{const_buf_[i].get(), 0, 0, 0};
    }
    if (!same_) {
      KILN_ASSIGN_OR_RETURN(geo_buf_, UploadBytes(env, geo_.data(), geo_.size() * sizeof(int)));
    }
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel(same_ ? "binary_same" : "binary_bcast"));
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(consts_[0] ? &const_tensor_[0] : T(in[0]));
      a.Tensor(consts_[1] ? &const_tensor_[1] : T(in[1]));
      a.Tensor(T(out[0])).I32(total_).I32(op_);
      if (!same_) a.Mem(geo_buf_.get());
      KILN_RETURN_IF_ERROR(a.status("binary"));
    }
    const size_t local = 128;
    const size_t global = (static_cast<size_t>(total_) + local - 1) / local * local;
    return launch.Run(kernel_.get(), 1, &global, &local);
  }

 private:
  int op_ = 0, total_ = 0;
  bool same_ = false;
  std::vector<int> geo_;
  const Value* consts_[2] = {nullptr, nullptr};
  ClBuffer const_buf_[2], geo_buf_;
  ClTensor const_tensor_[2];
  ClKernelObject kernel_;
};

// Unary ops: the activations (codes of ir/activation.h) and a few math functions.
bool UnaryCode(const Graph& g, const Node& n, int* code, float* alpha, float* beta) {
  *alpha = *beta = 0.f;
  switch (n.op) {
    case OpType::kRelu:
      *code = static_cast<int>(Activation::kRelu);
      return true;
    case OpType::kSigmoid:
      *code = static_cast<int>(Activation::kSigmoid);
      return true;
    case OpType::kTanh:
      *code = static_cast<int>(Activation::kTanh);
      return true;
    case OpType::kHardSwish:
      *code = static_cast<int>(Activation::kHardSwish);
      return true;
    case OpType::kLeakyRelu:
      *code = static_cast<int>(Activation::kLeakyRelu);
      *alpha = n.attrs.GetFloat("alpha", 0.01f);
      return true;
    case OpType::kHardSigmoid:
      *code = static_cast<int>(Activation::kHardSigmoid);
      *alpha = n.attrs.GetFloat("alpha", 0.2f);
      *beta = n.attrs.GetFloat("beta", 0.5f);
      return true;
    case OpType::kClip: {
      *code = static_cast<int>(Activation::kClip);
      *alpha = std::numeric_limits<float>::lowest();
      *beta = std::numeric_limits<float>::max();
      for (size_t i = 1; i < n.inputs.size() && i < 3; ++i) {
        if (n.inputs[i] == kNoValue) continue;
        const Value& v = g.value(n.inputs[i]);
        if (!v.is_constant() || v.dtype != DType::kF32 || v.num_elements() != 1) return false;
        (i == 1 ? *alpha : *beta) = v.constant->as<float>()[0];
      }
      return true;
    }
    case OpType::kSqrt:
      *code = 20;
      return true;
    case OpType::kExp:
      *code = 21;
      return true;
    case OpType::kNeg:
      *code = 22;
      return true;
    case OpType::kAbs:
      *code = 23;
      return true;
    case OpType::kReciprocal:
      *code = 24;
      return true;
    default:
      return false;
  }
}

bool AcceptsUnary(const Graph& g, const Node& n) {
  int code;
  float a, b;
  return OpenClTensorsOk(g, n) && UnaryCode(g, n, &code, &a, &b);
}

class UnaryCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    if (!UnaryCode(ctx.graph(), ctx.node(), &code_, &alpha_, &beta_)) {
      return Unsupported("unary op");
    }
    total_ = static_cast<int>(ctx.output(0).num_elements());
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel("unary"));
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0])).Tensor(T(out[0])).I32(total_).I32(code_).F32(alpha_).F32(beta_);
      KILN_RETURN_IF_ERROR(a.status("unary"));
    }
    const size_t local = 128;
    const size_t global = (static_cast<size_t>(total_) + local - 1) / local * local;
    return launch.Run(kernel_.get(), 1, &global, &local);
  }

 private:
  int code_ = 0, total_ = 0;
  float alpha_ = 0.f, beta_ = 0.f;
  ClKernelObject kernel_;
};

bool AcceptsBatchNorm(const Graph& g, const Node& n) {
  if (!OpenClTensorsOk(g, n) || n.inputs.size() != 5 || n.attrs.GetInt("training_mode", 0)) {
    return false;
  }
  if (n.outputs.size() > 1 && n.outputs[1] != kNoValue) return false;
  for (size_t i = 1; i < 5; ++i) {
    if (n.inputs[i] == kNoValue || !g.value(n.inputs[i]).is_constant()) return false;
  }
  return g.value(n.inputs[0]).shape.size() >= 2;
}

class BatchNormCl : public ClKernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    channels_ = static_cast<int>(x[1]);
    inner_ = static_cast<int>(NumElements(Shape(x.begin() + 2, x.end())));
    total_ = static_cast<int>(NumElements(x));
    epsilon_ = ctx.attrs().GetFloat("epsilon", 1e-5f);
    for (int i = 0; i < 4; ++i) params_[i] = &ctx.input(static_cast<size_t>(i) + 1);
    return Status::Ok();
  }
  Status Setup(ClEnv& env) override {
    std::vector<float> p[4];
    for (int i = 0; i < 4; ++i) {
      KILN_ASSIGN_OR_RETURN(p[i], ConstantFloats(*params_[i]));
      if (p[i].size() != static_cast<size_t>(channels_)) return InvalidArgument("BN params");
    }
    std::vector<float> scale(p[0].size()), shift(p[0].size());
    for (size_t c = 0; c < scale.size(); ++c) {
      scale[c] = p[0][c] / std::sqrt(p[3][c] + epsilon_);
      shift[c] = p[1][c] - p[2][c] * scale[c];
    }
    KILN_ASSIGN_OR_RETURN(scale_, UploadBytes(env, scale.data(), scale.size() * sizeof(float)));
    KILN_ASSIGN_OR_RETURN(shift_, UploadBytes(env, shift.data(), shift.size() * sizeof(float)));
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel("channel_affine"));
    return Status::Ok();
  }
  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0])).Tensor(T(out[0])).Mem(scale_.get()).Mem(shift_.get()).I32(channels_);
      a.I32(inner_).I32(total_);
      KILN_RETURN_IF_ERROR(a.status("channel_affine"));
    }
    const size_t local = 128;
    const size_t global = (static_cast<size_t>(total_) + local - 1) / local * local;
    return launch.Run(kernel_.get(), 1, &global, &local);
  }

 private:
  int channels_ = 0, inner_ = 0, total_ = 0;
  float epsilon_ = 1e-5f;
  const Value* params_[4] = {};
  ClBuffer scale_, shift_;
  ClKernelObject kernel_;
};

template <typename K>
std::unique_ptr<Kernel> Make() {
  return std::make_unique<K>();
}

}  // namespace

void RegisterOpenClEltwiseKernels(KernelRegistry& r) {
  auto reg = [&](OpType op, KernelFactory f, bool (*accepts)(const Graph&, const Node&)) {
    KernelTraits t;
    t.accepts = accepts;
    r.Register({op, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL}, f, t);
  };
  for (OpType op : {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv, OpType::kPow,
                    OpType::kMax, OpType::kMin}) {
    reg(op, Make<BinaryCl>, AcceptsBinary);
  }
  for (OpType op : {OpType::kRelu, OpType::kSigmoid, OpType::kTanh, OpType::kHardSwish,
                    OpType::kLeakyRelu, OpType::kHardSigmoid, OpType::kClip, OpType::kSqrt,
                    OpType::kExp, OpType::kNeg, OpType::kAbs, OpType::kReciprocal}) {
    reg(op, Make<UnaryCl>, AcceptsUnary);
  }
  reg(OpType::kBatchNormalization, Make<BatchNormCl>, AcceptsBatchNorm);
}

}  // namespace kiln::opencl
