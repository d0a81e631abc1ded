// Registers the reference kernels of the elementwise op family: one registration per
// (op, dispatch dtype) path. The dispatch dtype is the first input's.
#include "kernels/kernel_registry.h"
#include "kernels/reference/arg_reduce.h"
#include "kernels/reference/binary.h"
#include "kernels/reference/cast.h"
#include "kernels/reference/cast_convert.h"
#include "kernels/reference/compare.h"
#include "kernels/reference/float_class.h"
#include "kernels/reference/layout_adapter.h"
#include "kernels/reference/logical.h"
#include "kernels/reference/quantize.h"
#include "kernels/reference/reduce.h"
#include "kernels/reference/softmax.h"
#include "kernels/reference/unary.h"
#include "kernels/reference/variadic.h"
#include "kernels/reference/where.h"

namespace kiln {
namespace {

// Registers kernel template K for each (stored type, dtype) pair of Ts.
template <template <typename> class K, typename... Ts>
void RegisterFor(KernelRegistry& r, std::initializer_list<OpType> ops) {
  for (OpType op : ops) {
    (RegisterKernel<K<Ts>>(r, op, DTypeOf<Ts>::value), ...);
  }
}

}  // namespace

// DTypeOf has no entry for BoolByte (the bool storage type); bool paths register explicitly.
void RegisterReferenceElementwiseKernels(KernelRegistry& r) {
  // Unary: float-only math on f32/f16; Relu/Abs/Neg/Sign also on signed ints.
  RegisterFor<UnaryKernel, float, Float16>(
      r, {OpType::kRelu,        OpType::kLeakyRelu, OpType::kSigmoid, OpType::kTanh,
          OpType::kHardSigmoid, OpType::kHardSwish, OpType::kElu,     OpType::kSelu,
          OpType::kSoftplus,    OpType::kErf,       OpType::kGelu,    OpType::kExp,
          OpType::kLog,         OpType::kSqrt,      OpType::kAbs,     OpType::kNeg,
          OpType::kReciprocal,  OpType::kFloor,     OpType::kCeil,    OpType::kSign});
  RegisterFor<UnaryKernel, int8_t, int32_t, int64_t>(
      r, {OpType::kRelu, OpType::kAbs, OpType::kNeg, OpType::kSign});
  RegisterFor<ClipKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(r, {OpType::kClip});

  // Broadcasting binary ops.
  RegisterFor<BinaryKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(
      r, {OpType::kAdd, OpType::kSub, OpType::kMul, OpType::kDiv, OpType::kPRelu});
  // NCHW8c output (a blocked region's squeeze-excite scaling): the same kernel on plain copies.
  RegisterKernel<NCHW8cAdapter<BinaryKernel<float>>>(r, OpType::kMul, DType::kF32, kExecutorCpu,
                                                     Isa::kReference, Layout::kNCHW8c,
                                                     AnyLayoutTraits());
  RegisterFor<PowKernel, float, Float16, int32_t, int64_t>(r, {OpType::kPow});
  RegisterFor<ModKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(r, {OpType::kMod});
  RegisterFor<CompareKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(
      r, {OpType::kEqual, OpType::kGreater, OpType::kLess, OpType::kGreaterOrEqual,
          OpType::kLessOrEqual});
  RegisterKernel<CompareKernel<BoolByte>>(r, OpType::kEqual, DType::kBool);
  for (OpType op : {OpType::kAnd, OpType::kOr, OpType::kNot}) {
    RegisterKernel<LogicalKernel>(r, op, DType::kBool);
  }
  RegisterFor<VariadicKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(
      r, {OpType::kMax, OpType::kMin, OpType::kSum, OpType::kMean});
  RegisterKernel<WhereKernel>(r, OpType::kWhere, DType::kBool);  // dispatch = condition dtype
  RegisterFor<FloatClassKernel, float, Float16>(r, {OpType::kIsNaN, OpType::kIsInf});

  // Softmax and reductions.
  RegisterFor<SoftmaxKernel, float, Float16>(r, {OpType::kSoftmax, OpType::kLogSoftmax});
  RegisterFor<ReduceKernel, float, Float16, int32_t, int64_t>(
      r, {OpType::kReduceMean, OpType::kReduceMax, OpType::kReduceMin, OpType::kReduceSum,
          OpType::kReduceProd, OpType::kReduceL2});
  // ReduceMax/ReduceMin-20 on bool: any / all.
  RegisterKernel<ReduceKernel<BoolByte>>(r, OpType::kReduceMax, DType::kBool);
  RegisterKernel<ReduceKernel<BoolByte>>(r, OpType::kReduceMin, DType::kBool);
  RegisterFor<ArgReduceKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(
      r, {OpType::kArgMax, OpType::kArgMin});

  // Conversions.
  RegisterFor<CastKernel, float, Float16, int8_t, uint8_t, int32_t, int64_t>(r, {OpType::kCast});
  RegisterKernel<CastKernel<BoolByte>>(r, OpType::kCast, DType::kBool);
  RegisterFor<QuantizeKernel, float, Float16>(r, {OpType::kQuantizeLinear});
  RegisterFor<DequantizeKernel, uint8_t, int8_t, int16_t, int32_t>(r, {OpType::kDequantizeLinear});
}

}  // namespace kiln
