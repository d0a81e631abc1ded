// Reference QConcat: concatenation that brings every input to the output's quantization,
//   y = clamp(zy + Requantize(x_i - z_i, requant[i]), type range)
// (an input already in the output's parameters, requant (2^30, 30), is copied unchanged).
#include <string>

#include "kernels/reference/quantized_kernels.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::nn_ref {
namespace {

class QConcatKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const size_t n = ctx.num_inputs() - 1;
    const Shape& out = ctx.output(0).shape;
    int64_t axis = ctx.attrs().GetInt("axis", 0);
    if (!NormalizeAxis(axis, static_cast<int64_t>(out.size()))) {
      return InvalidArgument("QConcat axis out of range");
    }
    outer_ = NumElements(Shape(out.begin(), out.begin() + axis));
    KILN_ASSIGN_OR_RETURN(requant_, ReadRequant(ctx.input(n), static_cast<int64_t>(n)));
    blocks_.clear();
    types_.clear();
    zeros_.clear();
    for (size_t i = 0; i < n; ++i) {
      const Value& in = ctx.input(i);
      blocks_.push_back(NumElements(Shape(in.shape.begin() + axis, in.shape.end())));
      types_.push_back(in.dtype);
      zeros_.push_back(ZeroPointOf(in));
    }
    out_type_ = ctx.output(0).dtype;
    out_zero_ = ZeroPointOf(ctx.output(0));
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    void* y = outputs[0].data;
    const int32_t lo = QuantCodeMin(out_type_), hi = QuantCodeMax(out_type_);
    int64_t o = 0;
    for (int64_t outer = 0; outer < outer_; ++outer) {
      for (size_t i = 0; i < blocks_.size(); ++i) {
        const int64_t block = blocks_[i];
        const void* x = inputs[i].data;
        for (int64_t k = 0; k < block; ++k, ++o) {
          const int32_t v = LoadQuantized(x, types_[i], outer * block + k) - zeros_[i];
          StoreQuantized(y, out_type_, o, RequantizeToOutput(v, requant_[i], out_zero_, lo, hi));
        }
      }
    }
    return Status::Ok();
  }

 private:
  int64_t outer_ = 1;
  std::vector<int64_t> blocks_;
  std::vector<DType> types_;
  std::vector<int32_t> zeros_;
  std::vector<Requant> requant_;
  DType out_type_ = DType::kU8;
  int32_t out_zero_ = 0;
};

}  // namespace

void RegisterQConcatKernels(KernelRegistry& r) {
  RegisterKernel<QConcatKernel>(r, OpType::kQConcat, DType::kU8);
  RegisterKernel<QConcatKernel>(r, OpType::kQConcat, DType::kI8);
  RegisterKernel<QConcatKernel>(r, OpType::kQConcat, DType::kI16);
}

}  // namespace kiln::nn_ref
