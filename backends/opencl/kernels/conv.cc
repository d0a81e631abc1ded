// Conv and FusedConv on OpenCL (2-D, NCHW): a register-tiled implicit GEMM for ungrouped
// convolutions (1x1 ones read the input directly; a per-device tuner picks the tile shape
// and the split of the reduction), depthwise, and a direct kernel for other groupings. The
// epilogue applies bias, residual and activation (cl/conv.cl, cl/conv_gemm.cl).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/opencl/kernels/cl_program.h"
#include "backends/opencl/kernels/conv_gemm.h"
#include "backends/opencl/kernels/opencl_kernels.h"
#include "ir/activation.h"
#include "ir/ops/window_geometry.h"

namespace kiln::opencl {
namespace {

enum class ConvKind { kGemm, kDepthwise, kDirect };

struct ConvGeom {
  int n = 0, c = 0, h = 0, w = 0, m = 0, oh = 0, ow = 0, kh = 0, kw = 0;
  int sh = 1, sw = 1, ph = 0, pw = 0, dh = 1, dw = 1, group = 1;
};

Expected<ConvGeom> ReadGeom(const Graph& g, const Node& node) {
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue) {
    return InvalidArgument("conv needs X and W");
  }
  const Shape& x = g.value(node.inputs[0]).shape;
  const Shape& w = g.value(node.inputs[1]).shape;
  const Shape& y = g.value(node.outputs[0]).shape;
  if (x.size() != 4 || w.size() != 4 || y.size() != 4) return Unsupported("only 2-D convolutions");
  KILN_ASSIGN_OR_RETURN(WindowGeometry geo,
                        ResolveWindow(node.attrs, {x[2], x[3]}, {w[2], w[3]}, false));
  ConvGeom c;
  c.n = static_cast<int>(x[0]);
  c.c = static_cast<int>(x[1]);
  c.h = static_cast<int>(x[2]);
  c.w = static_cast<int>(x[3]);
  c.m = static_cast<int>(w[0]);
  c.kh = static_cast<int>(w[2]);
  c.kw = static_cast<int>(w[3]);
  c.oh = static_cast<int>(y[2]);
  c.ow = static_cast<int>(y[3]);
  c.sh = static_cast<int>(geo.strides[0]);
  c.sw = static_cast<int>(geo.strides[1]);
  c.dh = static_cast<int>(geo.dilations[0]);
  c.dw = static_cast<int>(geo.dilations[1]);
  c.ph = static_cast<int>(geo.pads_begin[0]);
  c.pw = static_cast<int>(geo.pads_begin[1]);
  c.group = static_cast<int>(node.attrs.GetInt("group", 1));
  if (c.ph < 0 || c.pw < 0 || c.group < 1 || c.c % c.group || c.m % c.group) {
    return Unsupported("negative pads or uneven groups");
  }
  return c;
}

std::optional<ConvKind> KindOf(const Graph& g, const Node& node) {
  if (!OpenClTensorsOk(g, node)) return std::nullopt;
  for (size_t i = 1; i < std::min<size_t>(node.inputs.size(), 3); ++i) {
    if (node.inputs[i] != kNoValue && !g.value(node.inputs[i]).is_constant()) return std::nullopt;
  }
  auto geo = ReadGeom(g, node);
  if (!geo.ok()) return std::nullopt;
  if (geo->group == 1) return ConvKind::kGemm;
  if (geo->group == geo->c) return ConvKind::kDepthwise;
  return ConvKind::kDirect;
}

bool AcceptsGemm(const Graph& g, const Node& n) { return KindOf(g, n) == ConvKind::kGemm; }
bool AcceptsDepthwise(const Graph& g, const Node& n) {
  return KindOf(g, n) == ConvKind::kDepthwise;
}
bool AcceptsDirect(const Graph& g, const Node& n) { return KindOf(g, n) == ConvKind::kDirect; }

class ConvCl : public ClKernel {
 public:
  explicit ConvCl(ConvKind kind) : kind_(kind) {}

  Status Prepare(const KernelContext& ctx) override {
    KILN_ASSIGN_OR_RETURN(geo_, ReadGeom(ctx.graph(), ctx.node()));
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    has_res_ = ctx.node().op == OpType::kFusedConv && ctx.has_input(3);
    weight_ = &ctx.input(1);
    bias_ = ctx.has_input(2) ? &ctx.input(2) : nullptr;
    return Status::Ok();
  }

  Status Setup(ClEnv& env) override {
    const ConvGeom& c = geo_;
    std::vector<float> bias(static_cast<size_t>(c.m), 0.f);
    if (bias_) {
      KILN_ASSIGN_OR_RETURN(bias, ConstantFloats(*bias_));
      if (bias.size() != static_cast<size_t>(c.m)) return InvalidArgument("conv bias size");
    }
    KILN_ASSIGN_OR_RETURN(bias_buf_, UploadBytes(env, bias.data(), bias.size() * sizeof(float)));
    if (kind_ != ConvKind::kGemm) {
      KILN_ASSIGN_OR_RETURN(std::vector<float> w, ConstantFloats(*weight_));
      KILN_ASSIGN_OR_RETURN(weights_, UploadStorage(env, w));
      KILN_ASSIGN_OR_RETURN(
          kernel_,
          env.CreateKernel(kind_ == ConvKind::kDepthwise ? "conv_depthwise" : "conv_direct"));
      return Status::Ok();
    }
    KILN_RETURN_IF_ERROR(UploadGemmWeights(env));
    // k -> (ci * H * W, kh * DH, kw * DW): the im2col addressing without divisions.
    const int k_count = c.c * c.kh * c.kw;
    std::vector<cl_int> ktab(static_cast<size_t>(k_count) * 4, 0);
    for (int ci = 0; ci < c.c; ++ci) {
      for (int kh = 0; kh < c.kh; ++kh) {
        for (int kw = 0; kw < c.kw; ++kw) {
          const size_t k = static_cast<size_t>((ci * c.kh + kh) * c.kw + kw);
          ktab[4 * k] = ci * c.h * c.w;
          ktab[4 * k + 1] = kh * c.dh;
          ktab[4 * k + 2] = kw * c.dw;
        }
      }
    }
    KILN_ASSIGN_OR_RETURN(ktab_, UploadBytes(env, ktab.data(), ktab.size() * sizeof(cl_int)));
    shape_.n = c.n;
    shape_.c = c.c;
    shape_.h = c.h;
    shape_.w = c.w;
    shape_.m = c.m;
    shape_.mpad = mpad_;
    shape_.k = k_count;
    shape_.oh = c.oh;
    shape_.ow = c.ow;
    shape_.sh = c.sh;
    shape_.sw = c.sw;
    shape_.ph = c.ph;
    shape_.pw = c.pw;
    shape_.is_1x1 = c.kh == 1 && c.kw == 1 && c.sh == 1 && c.sw == 1 && c.ph == 0 && c.pw == 0 &&
                    c.oh == c.h && c.ow == c.w;
    KILN_ASSIGN_OR_RETURN(
        choice_, ChooseConvGemm(env, shape_, weights_.get(), bias_buf_.get(), ktab_.get()));
    KILN_ASSIGN_OR_RETURN(kernel_, env.CreateKernel(ConvGemmVariants()[choice_.variant].name));
    KILN_ASSIGN_OR_RETURN(reduce_, env.CreateKernel("conv_splitk_reduce"));
    return Status::Ok();
  }

  size_t ScratchBytes() const override {
    return kind_ == ConvKind::kGemm && choice_.splits > 1
               ? ConvGemmPartialFloats(shape_, choice_) * sizeof(float)
               : 0;
  }

  Status Enqueue(ClLaunch& launch, std::span<const TensorView> in, std::span<const TensorView> out,
                 void* scratch) override {
    const ConvGeom& c = geo_;
    const ClTensor* res = has_res_ ? T(in[3]) : nullptr;
    if (kind_ == ConvKind::kGemm) {
      if (NeedsBind(in, out, scratch)) {
        const ConvGemmBuffers b{T(in[0]),
                                weights_.get(),
                                bias_buf_.get(),
                                res,
                                T(out[0]),
                                ktab_.get(),
                                static_cast<const ClTensor*>(scratch)};
        KILN_RETURN_IF_ERROR(BindConvGemm(kernel_.get(), reduce_.get(), shape_, choice_, b, act_));
      }
      return LaunchConvGemm(launch, kernel_.get(), reduce_.get(), shape_, choice_);
    }
    if (NeedsBind(in, out, scratch)) {
      ClArgs a(kernel_.get());
      a.Tensor(T(in[0])).Mem(weights_.get()).Mem(bias_buf_.get()).Tensor(res).I32(res != nullptr);
      a.Tensor(T(out[0])).I32(c.c).I32(c.h).I32(c.w).I32(c.m).I32(c.oh).I32(c.ow).I32(c.kh);
      a.I32(c.kw).I32(c.sh).I32(c.sw).I32(c.ph).I32(c.pw).I32(c.dh).I32(c.dw);
      if (kind_ == ConvKind::kDirect) a.I32(c.group);
      a.I32(static_cast<int>(act_.kind)).F32(act_.alpha).F32(act_.beta);
      KILN_RETURN_IF_ERROR(a.status("conv"));
    }
    if (kind_ == ConvKind::kDepthwise) {
      const size_t local[3] = {16, 4, 1};
      const size_t global[3] = {RoundUp(c.ow, 16), RoundUp(c.oh, 4),
                                static_cast<size_t>(c.n * c.m)};
      return launch.Run(kernel_.get(), 3, global, local);
    }
    const size_t local[3] = {64, 1, 1};
    const size_t global[3] = {RoundUp(c.oh * c.ow, 64), static_cast<size_t>(c.m),
                              static_cast<size_t>(c.n)};
    return launch.Run(kernel_.get(), 3, global, local);
  }

 private:
  static size_t RoundUp(int v, int m) { return static_cast<size_t>((v + m - 1) / m * m); }

  // [K, Mpad] storage: used as stored when the compiler packed the file for the GPU.
  Status UploadGemmWeights(ClEnv& env) {
    const int k_count = geo_.c * geo_.kh * geo_.kw;
    mpad_ = (geo_.m + 63) / 64 * 64;
    std::vector<float> packed;
    if (weight_->layout == Layout::kGemmKO64 && weight_->dtype == DType::kF32 && !env.fp16()) {
      KILN_ASSIGN_OR_RETURN(weights_,
                            UploadBytes(env, weight_->constant->data(), weight_->constant->size()));
      return Status::Ok();
    }
    if (weight_->layout == Layout::kGemmKO64 && weight_->dtype == DType::kF16 && env.fp16()) {
      KILN_ASSIGN_OR_RETURN(weights_,
                            UploadBytes(env, weight_->constant->data(), weight_->constant->size()));
      return Status::Ok();
    }
    KILN_ASSIGN_OR_RETURN(std::vector<float> w, ConstantFloats(*weight_));
    packed.assign(static_cast<size_t>(k_count) * static_cast<size_t>(mpad_), 0.f);
    for (int m = 0; m < geo_.m; ++m) {
      for (int k = 0; k < k_count; ++k) {
        packed[static_cast<size_t>(k) * static_cast<size_t>(mpad_) + static_cast<size_t>(m)] =
            w[static_cast<size_t>(m) * static_cast<size_t>(k_count) + static_cast<size_t>(k)];
      }
    }
    KILN_ASSIGN_OR_RETURN(weights_, UploadStorage(env, packed));
    return Status::Ok();
  }

  ConvKind kind_;
  ConvGeom geo_;
  ActivationParams act_;
  bool has_res_ = false;
  const Value* weight_ = nullptr;
  const Value* bias_ = nullptr;
  int mpad_ = 0;
  ConvGemmShape shape_;
  ConvGemmChoice choice_;
  ClBuffer weights_, bias_buf_, ktab_;
  ClKernelObject kernel_, reduce_;
};

template <ConvKind kKind>
std::unique_ptr<Kernel> Make() {
  return std::make_unique<ConvCl>(kKind);
}

}  // namespace

void RegisterOpenClConvKernels(KernelRegistry& r) {
  for (OpType op : {OpType::kFusedConv, OpType::kConv}) {
    const KernelKey key{op, kExecutorOpenCL, DType::kF32, Layout::kPlain, Isa::kOpenCL};
    // The compiler packs ungrouped convolution weights into gemmko64 for the GPU
    // (kiln compile --target gpu); weights in any other layout are repacked at setup.
    KernelTraits packed;
    packed.accepts = AcceptsGemm;
    packed.packing = WeightPacking{1, Layout::kGemmKO64};
    r.Register(key, Make<ConvKind::kGemm>, packed);
    KernelTraits gemm_any;
    gemm_any.accepts = AcceptsGemm;
    gemm_any.any_weight_layout = true;
    r.Register(key, Make<ConvKind::kGemm>, gemm_any);
    KernelTraits dw;
    dw.accepts = AcceptsDepthwise;
    dw.any_weight_layout = true;
    r.Register(key, Make<ConvKind::kDepthwise>, dw);
    KernelTraits direct;
    direct.accepts = AcceptsDirect;
    direct.any_weight_layout = true;
    r.Register(key, Make<ConvKind::kDirect>, direct);
  }
}

}  // namespace kiln::opencl
