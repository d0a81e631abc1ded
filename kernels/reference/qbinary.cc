// Reference QAdd and QMul: the bit-exact quantized elementwise sum and product with numpy
// broadcasting (docs/quantization.md).
//   QAdd: a' = Requantize((a - za) * 2^L, requant[0]), b' likewise with requant[1],
//         y = clamp(zy + Requantize(a' + b', requant[2]), qmin, qmax)
//   QMul: y = clamp(zy + Requantize((a - za) * (b - zb), requant[0]), qmin, qmax)
// L = 20 with two 8-bit inputs, 15 when either is int16 (QAddLeftShift); an int16 product is
// at most 2^30, so QMul stays in int32.
#include "kernels/reference/broadcast.h"
#include "kernels/reference/quantized_kernels.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::nn_ref {
namespace {

class QBinaryKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    add_ = ctx.node().op == OpType::kQAdd;
    KILN_ASSIGN_OR_RETURN(
        plan_, MakeBroadcastPlan(ctx.output(0).shape, {ctx.input(0).shape, ctx.input(1).shape}));
    KILN_ASSIGN_OR_RETURN(requant_, ReadRequant(ctx.input(2), add_ ? 3 : 1));
    a_type_ = ctx.input(0).dtype;
    b_type_ = ctx.input(1).dtype;
    a_zero_ = ZeroPointOf(ctx.input(0));
    b_zero_ = ZeroPointOf(ctx.input(1));
    left_shift_ = QAddLeftShift(a_type_ == DType::kI16 || b_type_ == DType::kI16);
    out_type_ = ctx.output(0).dtype;
    out_zero_ = ZeroPointOf(ctx.output(0));
    clamp_ = ReadClamp(ctx.attrs(), out_type_);
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const void* a = inputs[0].data;
    const void* b = inputs[1].data;
    void* y = outputs[0].data;
    // Each output element reads its inputs before it is written: in-place safe.
    if (add_) {
      const Requant ra = requant_[0], rb = requant_[1], ro = requant_[2];
      ForEachBroadcast<2>(plan_, [&](int64_t i, const std::array<int64_t, 2>& off) {
        const int32_t av = Requantize(
            (LoadQuantized(a, a_type_, off[0]) - a_zero_) * (int32_t{1} << left_shift_), ra);
        const int32_t bv = Requantize(
            (LoadQuantized(b, b_type_, off[1]) - b_zero_) * (int32_t{1} << left_shift_), rb);
        StoreQuantized(
            y, out_type_, i,
            RequantizeToOutput(WrappingAdd(av, bv), ro, out_zero_, clamp_.lo, clamp_.hi));
      });
    } else {
      const Requant r = requant_[0];
      ForEachBroadcast<2>(plan_, [&](int64_t i, const std::array<int64_t, 2>& off) {
        const int32_t prod = (LoadQuantized(a, a_type_, off[0]) - a_zero_) *
                             (LoadQuantized(b, b_type_, off[1]) - b_zero_);
        StoreQuantized(y, out_type_, i,
                       RequantizeToOutput(prod, r, out_zero_, clamp_.lo, clamp_.hi));
      });
    }
    return Status::Ok();
  }

 private:
  bool add_ = true;
  int left_shift_ = kAddLeftShift;
  BroadcastPlan plan_;
  std::vector<Requant> requant_;
  DType a_type_ = DType::kU8, b_type_ = DType::kU8, out_type_ = DType::kU8;
  int32_t a_zero_ = 0, b_zero_ = 0, out_zero_ = 0;
  QuantClamp clamp_;
};

}  // namespace

void RegisterQBinaryKernels(KernelRegistry& r) {
  for (OpType op : {OpType::kQAdd, OpType::kQMul}) {
    RegisterKernel<QBinaryKernel>(r, op, DType::kU8);
    RegisterKernel<QBinaryKernel>(r, op, DType::kI8);
    RegisterKernel<QBinaryKernel>(r, op, DType::kI16);
  }
}

}  // namespace kiln::nn_ref
