// QGemm (the quantized fully connected layer) on the CPU int8 kernels: A [M, K] times B [N, K]
// (transB = 1) is a 1x1 convolution of M images of K channels and one pixel into N channels,
// so it runs on QConvCpu's GEMM over the same kI8O8K4 weights (packed offline by
// pack-weights, which first transposes a B given [K, N]).
#include <cstring>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/kernels/qconv.h"
#include "backends/cpu/kernels/qconv_kernel_base.h"
#include "ir/quant_code.h"
#include "kernels/cpu_features.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::cpu {
namespace {

QType ToQType(DType t) {
  return t == DType::kU8 ? QType::kU8 : t == DType::kI8 ? QType::kI8 : QType::kI32;
}

// M, K, N of a QGemm the int8 kernels take, or an error.
struct GemmDims {
  int64_t m = 0, k = 0, n = 0;
};
Expected<GemmDims> QGemmDims(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue) {
    return Unsupported("QGemm without A or B");
  }
  const Value& a = graph.value(node.inputs[0]);
  const Value& b = graph.value(node.inputs[1]);
  const Value& y = graph.value(node.outputs[0]);
  // transB = 0 only while B is plain: pack-weights transposes it before packing.
  const bool trans_b = node.attrs.GetInt("transB", 0) != 0;
  if (node.attrs.GetInt("transA", 0) != 0 || (!trans_b && b.layout != Layout::kPlain) ||
      !Is8BitCode(a.dtype) || !Is8BitCode(b.dtype) || !b.is_constant() || b.shape.size() != 2 ||
      (!Is8BitCode(y.dtype) && y.dtype != DType::kI32)) {
    return Unsupported("not an 8-bit QGemm with a constant B [N, K]");
  }
  if (Is8BitCode(y.dtype)) {
    if (!ClampWithinCodes(ReadClamp(node.attrs, y.dtype), y.dtype)) {
      return Unsupported("QGemm clamp outside the output type's range");
    }
    if (node.inputs.size() < 4 || node.inputs[3] == kNoValue) return Unsupported("no requant");
  }
  for (size_t i : {size_t{2}, size_t{3}}) {
    if (i < node.inputs.size() && node.inputs[i] != kNoValue &&
        !graph.value(node.inputs[i]).is_constant()) {
      return Unsupported("QGemm bias/requant not constant");
    }
  }
  const int64_t axis = node.attrs.GetInt("a_flatten_axis", 1);
  if (axis < 1 || axis >= static_cast<int64_t>(a.shape.size())) return Unsupported("axis");
  GemmDims d;
  d.m = NumElements(Shape(a.shape.begin(), a.shape.begin() + axis));
  d.k = NumElements(Shape(a.shape.begin() + axis, a.shape.end()));
  d.n = trans_b ? b.shape[0] : b.shape[1];
  if ((trans_b ? b.shape[1] : b.shape[0]) != d.k || d.m <= 0 || d.k <= 0 || d.n <= 0)
    return Unsupported("dims");
  return d;
}

bool AcceptsQGemm(const Graph& graph, const Node& node) { return QGemmDims(graph, node).ok(); }

class QGemmCpuKernel : public QConvCpuKernelBase {
 public:
  explicit QGemmCpuKernel(Isa isa) : QConvCpuKernelBase(isa, -1) {}

  Status Prepare(const KernelContext& ctx) override {
    const Value& av = ctx.input(0);
    const Value& bv = ctx.input(1);
    if (bv.layout != Layout::kI8O8K4 || ctx.attrs().GetInt("transB", 0) != 1 ||
        bv.constant->size() != LayoutByteSize(Layout::kI8O8K4, bv.dtype, bv.shape)) {
      return Internal("int8 QGemm kernel bound to B in " + std::string(LayoutName(bv.layout)));
    }
    KILN_ASSIGN_OR_RETURN(GemmDims d, QGemmDims(ctx.graph(), ctx.node()));
    QConvSpec s;
    s.g.batch = d.m;
    s.g.in_c = d.k;
    s.g.in_h = s.g.in_w = s.g.out_h = s.g.out_w = 1;
    s.g.out_c = d.n;
    s.x_type = ToQType(av.dtype);
    s.x_zero = ZeroPointOf(av);
    s.w_unsigned = bv.dtype == DType::kU8;
    s.w_zero = ZeroPointsOf(bv, d.n);
    s.bias.assign(static_cast<size_t>(d.n), 0);
    if (ctx.has_input(2)) {
      const Value& b = ctx.input(2);
      if (b.dtype != DType::kI32 || NumElements(b.shape) != d.n) {
        return InvalidArgument("QGemm bias must be i32 [" + std::to_string(d.n) + "]");
      }
      std::memcpy(s.bias.data(), b.constant->data(), s.bias.size() * sizeof(int32_t));
    }
    const Value& yv = ctx.output(0);
    s.out_type = ToQType(yv.dtype);
    s.out_zero = s.out_type == QType::kI32 ? 0 : ZeroPointOf(yv);
    const QuantClamp clamp = ReadClamp(ctx.attrs(), yv.dtype);
    s.qmin = clamp.lo;
    s.qmax = clamp.hi;
    if (ctx.has_input(3)) {
      KILN_ASSIGN_OR_RETURN(s.requant, ReadRequant(ctx.input(3), d.n));
    }
    KILN_ASSIGN_OR_RETURN(const Int8Kernels* k, Table(ctx));
    conv_ = QConvCpu::Gemm(std::move(s), reinterpret_cast<const int8_t*>(bv.constant->data()), *k,
                           threads_);
    return Status::Ok();
  }
};

}  // namespace

void RegisterQGemmInt8(KernelRegistry& r) {
  KernelTraits traits;
  traits.accepts = AcceptsQGemm;
  traits.packing = WeightPacking{1, Layout::kI8O8K4};
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512Vnni}) {
    for (DType t : {DType::kU8, DType::kI8}) {
      r.Register(
          KernelKey{OpType::kQGemm, kExecutorCpu, t, Layout::kPlain, isa},
          [isa] { return std::make_unique<QGemmCpuKernel>(isa); }, traits);
    }
  }
}

}  // namespace kiln::cpu
