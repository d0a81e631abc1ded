// Reference QAveragePool and QGlobalAveragePool: integer sums of (x - zx) over each window,
// requantized by the multiplier for that window's tap count (docs/quantization.md):
//   QAveragePool:       y = clamp(zy + Requantize(sum, requant[count - 1]), qmin, qmax)
//   QGlobalAveragePool: y = clamp(zy + Requantize(sum, requant[0]), qmin, qmax), or the plain
//                       sum for an i32 output (scale s_x / spatial size).
// `count` follows AveragePool's count_include_pad rule. Sums are int64 (int16 inputs over a
// large plane exceed int32) and requantized with RequantizeWide; for 8-bit inputs that is the
// int32 arithmetic the SIMD kernels do, as no 8-bit sum reaches 2^31.
#include <algorithm>

#include "kernels/reference/pool_window.h"
#include "kernels/reference/quantized_kernels.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::nn_ref {
namespace {

class QAveragePoolKernel : public PoolBase {
 public:
  Status Prepare(const KernelContext& ctx) override {
    KILN_RETURN_IF_ERROR(PoolBase::Prepare(ctx));
    if (dilation_.size() != 1) return Unsupported("dilated QAveragePool");
    count_include_pad_ = ctx.attrs().GetInt("count_include_pad", 0) != 0;
    KILN_ASSIGN_OR_RETURN(requant_, ReadRequant(ctx.input(1), kernel_.size()));
    x_type_ = ctx.input(0).dtype;
    x_zero_ = ZeroPointOf(ctx.input(0));
    out_type_ = ctx.output(0).dtype;
    out_zero_ = ZeroPointOf(ctx.output(0));
    clamp_ = ReadClamp(ctx.attrs(), out_type_);
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const void* x = inputs[0].data;
    void* y = outputs[0].data;
    for (int64_t p = 0; p < planes_; ++p) {
      const int64_t xp = p * in_.size();
      int64_t o = p * out_.size();
      ForEachWindow([&](const Window& win) {
        int64_t sum = 0;
        for (int64_t kd = win.kd0; kd < win.kd1; ++kd) {
          for (int64_t kh = win.kh0; kh < win.kh1; ++kh) {
            const int64_t row = xp + ((win.d + kd) * in_.h + win.h + kh) * in_.w + win.w;
            for (int64_t kw = win.kw0; kw < win.kw1; ++kw) {
              sum += LoadQuantized(x, x_type_, row + kw) - x_zero_;
            }
          }
        }
        int64_t count = (win.kd1 - win.kd0) * (win.kh1 - win.kh0) * (win.kw1 - win.kw0);
        if (count_include_pad_) count = PaddedTaps(win);
        count = std::clamp<int64_t>(count, 1, kernel_.size());
        StoreQuantized(y, out_type_, o++,
                       RequantizeWideToOutput(sum, requant_[static_cast<size_t>(count - 1)],
                                              out_zero_, clamp_.lo, clamp_.hi));
      });
    }
    return Status::Ok();
  }

 private:
  bool count_include_pad_ = false;
  std::vector<Requant> requant_;  // by tap count - 1
  DType x_type_ = DType::kU8, out_type_ = DType::kU8;
  int32_t x_zero_ = 0, out_zero_ = 0;
  QuantClamp clamp_;
};

class QGlobalAveragePoolKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    planes_ = x[0] * x[1];
    inner_ = NumElements(Shape(x.begin() + 2, x.end()));
    x_type_ = ctx.input(0).dtype;
    x_zero_ = ZeroPointOf(ctx.input(0));
    out_type_ = ctx.output(0).dtype;
    out_zero_ = out_type_ == DType::kI32 ? 0 : ZeroPointOf(ctx.output(0));
    clamp_ = ReadClamp(ctx.attrs(), out_type_);
    if (out_type_ != DType::kI32) {
      KILN_ASSIGN_OR_RETURN(auto rq, ReadRequant(ctx.input(1), 1));
      requant_ = rq[0];
    }
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const void* x = inputs[0].data;
    void* y = outputs[0].data;
    for (int64_t p = 0; p < planes_; ++p) {
      int64_t sum = PlaneSum(x, p * inner_) - inner_ * x_zero_;
      const int32_t v =
          out_type_ == DType::kI32
              ? static_cast<int32_t>(std::clamp<int64_t>(sum, clamp_.lo, clamp_.hi))
              : RequantizeWideToOutput(sum, requant_, out_zero_, clamp_.lo, clamp_.hi);
      StoreQuantized(y, out_type_, p, v);
    }
    return Status::Ok();
  }

 private:
  int64_t planes_ = 0, inner_ = 0;
  DType x_type_ = DType::kU8, out_type_ = DType::kU8;
  int32_t x_zero_ = 0, out_zero_ = 0;
  QuantClamp clamp_;
  Requant requant_;

  // The plane's codes summed with the type's own loads (a typed loop the compiler vectorises:
  // a LoadQuantized call per code was most of mobilenetv2-12-int8's 1280x7x7 pool).
  template <typename T>
  static int64_t SumCodes(const T* v, int64_t n) {
    int64_t sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += v[i];
    return sum;
  }
  int64_t PlaneSum(const void* x, int64_t first) const {
    switch (x_type_) {
      case DType::kU8:
        return SumCodes(static_cast<const uint8_t*>(x) + first, inner_);
      case DType::kI8:
        return SumCodes(static_cast<const int8_t*>(x) + first, inner_);
      case DType::kI16:
        return SumCodes(static_cast<const int16_t*>(x) + first, inner_);
      default: {
        int64_t sum = 0;
        for (int64_t i = 0; i < inner_; ++i) sum += LoadQuantized(x, x_type_, first + i);
        return sum;
      }
    }
  }
};

}  // namespace

void RegisterQPoolKernels(KernelRegistry& r) {
  for (DType t : {DType::kU8, DType::kI8, DType::kI16}) {
    RegisterKernel<QAveragePoolKernel>(r, OpType::kQAveragePool, t);
    RegisterKernel<QGlobalAveragePoolKernel>(r, OpType::kQGlobalAveragePool, t);
  }
}

}  // namespace kiln::nn_ref
