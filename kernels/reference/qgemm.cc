// Reference QGemm: the bit-exact quantized fully connected layer (docs/quantization.md).
// A [M, K] (A read 2-D through a_flatten_axis), B an 8-bit constant [N, K] (transB = 1) or
// [K, N], quantized per tensor or per output feature n:
//   acc[m, n] = bias[n] + sum_k (a[m, k] - za) * (b[n, k] - zb[n])
//   y = clamp(zy + Requantize(acc, requant[n]), qmin, qmax), or clamp(acc) for an i32 output.
// An int16 A or int16 B (zero point 0) accumulates in int64 (i32 or i64 bias) and uses
// RequantizeWide.
#include <algorithm>
#include <cstring>

#include "kernels/reference/quantized_kernels.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::nn_ref {
namespace {

class QGemmKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    if (ctx.attrs().GetInt("transA", 0) != 0) return Unsupported("QGemm with transA = 1");
    const Value& av = ctx.input(0);
    const Value& bv = ctx.input(1);
    const Shape& a = av.shape;
    const int64_t axis = ctx.attrs().GetInt("a_flatten_axis", 1);
    if (axis < 1 || axis >= static_cast<int64_t>(a.size()) || bv.shape.size() != 2 ||
        !bv.is_constant()) {
      return InvalidArgument("QGemm needs a_flatten_axis in range and a 2-D constant B");
    }
    // Packed B (the CPU int8 kernels' layout, in a compiled file) is unpacked first.
    std::vector<uint8_t> unpacked;
    const uint8_t* bbytes = bv.constant->data();
    if (bv.layout != Layout::kPlain) {
      KILN_ASSIGN_OR_RETURN(
          unpacked, UnpackLayout(bv.layout, bv.dtype, bv.shape, bbytes, bv.constant->size()));
      bbytes = unpacked.data();
    }
    m_ = NumElements(Shape(a.begin(), a.begin() + axis));
    k_ = NumElements(Shape(a.begin() + axis, a.end()));
    const bool tb = ctx.attrs().GetInt("transB", 0) != 0;
    n_ = tb ? bv.shape[0] : bv.shape[1];
    if ((tb ? bv.shape[1] : bv.shape[0]) != k_) return InvalidArgument("QGemm inner dims differ");
    // B centred and stored [N, K] so each output feature is a contiguous dot product.
    const std::vector<int32_t> bz = ZeroPointsOf(bv, n_);
    b_.resize(static_cast<size_t>(n_ * k_));
    for (int64_t n = 0; n < n_; ++n) {
      for (int64_t k = 0; k < k_; ++k) {
        const int64_t src = tb ? n * k_ + k : k * n_ + n;
        b_[static_cast<size_t>(n * k_ + k)] =
            static_cast<int16_t>(LoadQuantized(bbytes, bv.dtype, src) - bz[static_cast<size_t>(n)]);
      }
    }
    a_type_ = av.dtype;
    a_zero_ = ZeroPointOf(av);
    wide_ = a_type_ == DType::kI16 || bv.dtype == DType::kI16;
    if (ctx.has_input(2)) {
      KILN_ASSIGN_OR_RETURN(bias_, ReadQuantBias(ctx.input(2)));
    } else {
      bias_.assign(static_cast<size_t>(n_), 0);
    }
    out_type_ = ctx.output(0).dtype;
    out_zero_ = out_type_ == DType::kI32 ? 0 : ZeroPointOf(ctx.output(0));
    clamp_ = ReadClamp(ctx.attrs(), out_type_);
    requant_.clear();
    if (ctx.has_input(3)) {
      KILN_ASSIGN_OR_RETURN(requant_, ReadRequant(ctx.input(3), n_));
    } else if (out_type_ != DType::kI32) {
      return InvalidArgument("QGemm with an 8-bit output needs its requant input");
    }
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

  size_t ScratchBytes() const override { return static_cast<size_t>(m_ * k_) * sizeof(int16_t); }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    auto* ac = static_cast<int16_t*>(scratch);
    CenterTo16(inputs[0].data, a_type_, a_zero_, m_ * k_, ac);
    void* y = outputs[0].data;
    auto features = [&](int64_t n0, int64_t n1) {
      for (int64_t m = 0; m < m_; ++m) {
        const int16_t* arow = ac + m * k_;
        for (int64_t n = n0; n < n1; ++n) {
          const int16_t* brow = b_.data() + n * k_;
          const Requant r = requant_.empty() ? Requant{} : requant_[static_cast<size_t>(n)];
          const int32_t v =
              wide_ ? Feature<int64_t>(arow, brow, n, r) : Feature<int32_t>(arow, brow, n, r);
          StoreQuantized(y, out_type_, m * n_ + n, v);
        }
      }
    };
    if (pool_ && n_ >= 64) {
      pool_->ParallelFor(n_, features, 32);
    } else {
      features(0, n_);
    }
    return Status::Ok();
  }

 private:
  // One output: bias + the dot product of a row of A and a row of B in Acc (int64 with int16
  // operands), to its output code.
  template <typename Acc>
  int32_t Feature(const int16_t* arow, const int16_t* brow, int64_t n, Requant r) const {
    Acc acc = static_cast<Acc>(bias_[static_cast<size_t>(n)]);
    for (int64_t k = 0; k < k_; ++k) acc += static_cast<Acc>(arow[k]) * brow[k];
    return AccumulatorToOutput(acc, out_type_, r, out_zero_, clamp_);
  }

  int64_t m_ = 0, k_ = 0, n_ = 0;
  std::vector<int16_t> b_;     // (b - zb) as [N, K]
  std::vector<int64_t> bias_;  // widened from the i32 (or, int16 A, i64) constant
  std::vector<Requant> requant_;
  bool wide_ = false;  // int16 A or B: int64 accumulators
  DType a_type_ = DType::kU8, out_type_ = DType::kU8;
  int32_t a_zero_ = 0, out_zero_ = 0;
  QuantClamp clamp_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterQGemmKernels(KernelRegistry& r) {
  KernelTraits any_layout;
  any_layout.any_weight_layout = true;
  RegisterKernel<QGemmKernel>(r, OpType::kQGemm, DType::kU8, kExecutorCpu, Isa::kReference,
                              Layout::kPlain, any_layout);
  RegisterKernel<QGemmKernel>(r, OpType::kQGemm, DType::kI8, kExecutorCpu, Isa::kReference,
                              Layout::kPlain, any_layout);
  RegisterKernel<QGemmKernel>(r, OpType::kQGemm, DType::kI16, kExecutorCpu, Isa::kReference,
                              Layout::kPlain, any_layout);
}

}  // namespace kiln::nn_ref
