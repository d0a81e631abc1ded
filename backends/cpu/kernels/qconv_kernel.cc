// QConv on the CPU int8 kernels (qconv.h): the GEMM over the compiler's kI8O8K4 weights
// (pack-weights asks for them through the traits below; bound in place, never repacked) and
// the depthwise kernel over plain weights, at the portable, AVX2 and AVX-512 VNNI flavours.
// 2-D (and 1-D) convolutions only; 3-D ones and grouped convolutions whose groups split an
// 8-channel panel stay with the reference kernel, which reads every layout.
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

// The node's conv geometry, or an error when the int8 kernels do not take it.
Expected<Conv2dGeometry> QGeometry(const Graph& graph, const Node& node) {
  if (node.inputs.size() < 5 && graph.value(node.outputs[0]).dtype != DType::kI32) {
    return Unsupported("QConv without its requant input");
  }
  if (node.inputs.size() < 2 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue) {
    return Unsupported("QConv without X or W");
  }
  const Value& x = graph.value(node.inputs[0]);
  const Value& w = graph.value(node.inputs[1]);
  const Value& y = graph.value(node.outputs[0]);
  if (!Is8BitCode(x.dtype) || !Is8BitCode(w.dtype) || !w.is_constant() ||
      (!Is8BitCode(y.dtype) && y.dtype != DType::kI32) ||
      (x.shape.size() != 4 && x.shape.size() != 3)) {
    return Unsupported("not an 8-bit 1-D/2-D QConv with constant weights");
  }
  for (size_t i : {size_t{2}, size_t{4}, size_t{5}}) {
    if (i < node.inputs.size() && node.inputs[i] != kNoValue &&
        !graph.value(node.inputs[i]).is_constant()) {
      return Unsupported("QConv bias/requant not constant");
    }
  }
  if (Is8BitCode(y.dtype)) {  // the SIMD epilogue relies on a clamp inside the output type
    if (!ClampWithinCodes(ReadClamp(node.attrs, y.dtype), y.dtype)) {
      return Unsupported("QConv clamp outside the output type's range");
    }
  }
  if (node.inputs.size() > 3 && node.inputs[3] != kNoValue &&
      !Is8BitCode(graph.value(node.inputs[3]).dtype)) {
    return Unsupported("QConv residual not 8-bit");
  }
  return ResolveConv2d(node.attrs, x.shape, w.shape);
}

bool AcceptsGemm(const Graph& graph, const Node& node) {
  auto g = QGeometry(graph, node);
  return g.ok() && QConvGemmApplies(*g);
}

bool AcceptsDepthwise(const Graph& graph, const Node& node) {
  auto g = QGeometry(graph, node);
  return g.ok() && QConvDepthwiseApplies(*g);
}

class QConvCpuKernel : public QConvCpuKernelBase {
 public:
  // Input 3 holds the residual codes.
  QConvCpuKernel(Isa isa, bool depthwise) : QConvCpuKernelBase(isa, 3), depthwise_(depthwise) {}

  Status Prepare(const KernelContext& ctx) override {
    const Value& xv = ctx.input(0);
    const Value& wv = ctx.input(1);
    const Layout want = depthwise_ ? Layout::kPlain : Layout::kI8O8K4;
    if (wv.layout != want) {
      return Internal("int8 QConv kernel for " + std::string(LayoutName(want)) +
                      " bound to weights in " + std::string(LayoutName(wv.layout)));
    }
    QConvSpec s;
    KILN_ASSIGN_OR_RETURN(s.g, QGeometry(ctx.graph(), ctx.node()));
    const int64_t m = s.g.out_c;
    s.x_type = ToQType(xv.dtype);
    s.x_zero = ZeroPointOf(xv);
    s.w_unsigned = wv.dtype == DType::kU8;
    s.w_zero = ZeroPointsOf(wv, m);
    s.bias.assign(static_cast<size_t>(m), 0);
    if (ctx.has_input(2)) {
      const Value& b = ctx.input(2);
      if (b.dtype != DType::kI32 || NumElements(b.shape) != m) {
        return InvalidArgument("QConv bias must be i32 [" + std::to_string(m) + "]");
      }
      std::memcpy(s.bias.data(), b.constant->data(), s.bias.size() * sizeof(int32_t));
    }
    const Value& yv = ctx.output(0);
    s.out_type = ToQType(yv.dtype);
    s.out_zero = s.out_type == QType::kI32 ? 0 : ZeroPointOf(yv);
    const QuantClamp clamp = ReadClamp(ctx.attrs(), yv.dtype);
    s.qmin = clamp.lo;
    s.qmax = clamp.hi;
    if (ctx.has_input(4)) {
      KILN_ASSIGN_OR_RETURN(s.requant, ReadRequant(ctx.input(4), m));
    } else if (s.out_type != QType::kI32) {
      return InvalidArgument("QConv with an 8-bit output needs its requant input");
    }
    s.residual = ctx.has_input(3);
    if (s.residual) {
      if (!ctx.has_input(5)) return InvalidArgument("QConv residual without its requant input");
      s.residual_type = ToQType(ctx.input(3).dtype);
      s.residual_zero = ZeroPointOf(ctx.input(3));
      KILN_ASSIGN_OR_RETURN(s.residual_requant, ReadRequant(ctx.input(5), m));
    }
    KILN_ASSIGN_OR_RETURN(const Int8Kernels* k, Table(ctx));
    const int threads = threads_;
    if (depthwise_) {
      conv_ = QConvCpu::Depthwise(std::move(s), wv.constant->data(), wv.dtype == DType::kI8, *k,
                                  threads);
    } else {
      if (wv.constant->size() != LayoutByteSize(Layout::kI8O8K4, wv.dtype, wv.shape)) {
        return InvalidArgument("QConv weights '" + wv.name + "' are not a whole i8o8k4 tensor");
      }
      conv_ = QConvCpu::Gemm(std::move(s), reinterpret_cast<const int8_t*>(wv.constant->data()), *k,
                             threads);
    }
    return Status::Ok();
  }

 private:
  bool depthwise_;
};

}  // namespace

void RegisterQConvInt8(KernelRegistry& r) {
  KernelTraits gemm;
  gemm.accepts = AcceptsGemm;
  gemm.packing = WeightPacking{1, Layout::kI8O8K4};
  KernelTraits dw;
  dw.accepts = AcceptsDepthwise;
  for (Isa isa : {Isa::kScalar, Isa::kAvx2, Isa::kAvx512Vnni}) {
    for (DType t : {DType::kU8, DType::kI8}) {
      r.Register(
          KernelKey{OpType::kQConv, kExecutorCpu, t, Layout::kPlain, isa},
          [isa] { return std::make_unique<QConvCpuKernel>(isa, false); }, gemm);
      r.Register(
          KernelKey{OpType::kQConv, kExecutorCpu, t, Layout::kPlain, isa},
          [isa] { return std::make_unique<QConvCpuKernel>(isa, true); }, dw);
    }
  }
}

}  // namespace kiln::cpu
