// Reference Gemm and FusedGemm: Y = act(alpha * op(A) * op(B) + beta * C), C broadcast
// unidirectionally to [M, N]; FusedGemm reads an N-D A as 2-D (a_flatten_axis).
#include "kernels/activation.h"
#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"
#include "kernels/reference/plain_weights.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class GemmKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    Shape a = ctx.input(0).shape;
    const Shape& b = ctx.input(1).shape;
    if (ctx.node().op == OpType::kFusedGemm) {
      const int64_t axis = ctx.attrs().GetInt("a_flatten_axis", 1);
      if (axis < 1 || axis >= static_cast<int64_t>(a.size())) {
        return InvalidArgument("FusedGemm a_flatten_axis out of range");
      }
      a = {NumElements(Shape(a.begin(), a.begin() + axis)),
           NumElements(Shape(a.begin() + axis, a.end()))};
    }
    if (a.size() != 2 || b.size() != 2) return InvalidArgument("Gemm A and B must be 2-D");
    KILN_RETURN_IF_ERROR(ReadActivation(ctx.attrs(), &act_));
    KILN_RETURN_IF_ERROR(plain_weights_.Bind<T>(ctx.input(1)));
    alpha_ = ctx.attrs().GetFloat("alpha", 1.f);
    beta_ = ctx.attrs().GetFloat("beta", 1.f);
    trans_a_ = ctx.attrs().GetInt("transA", 0) != 0;
    trans_b_ = ctx.attrs().GetInt("transB", 0) != 0;
    m_ = trans_a_ ? a[1] : a[0];
    k_ = trans_a_ ? a[0] : a[1];
    n_ = trans_b_ ? b[0] : b[1];
    if ((trans_b_ ? b[1] : b[0]) != k_) return InvalidArgument("Gemm inner dimensions differ");
    // A/B element (i, k) / (k, j) live at i * row + k * col.
    a_row_ = trans_a_ ? 1 : a[1];
    a_col_ = trans_a_ ? a[1] : 1;
    b_row_ = trans_b_ ? 1 : b[1];
    b_col_ = trans_b_ ? b[1] : 1;
    if (ctx.has_input(2)) {
      // Broadcast C: a size-1 (or missing) axis gets stride 0.
      Shape c = ctx.input(2).shape;
      if (c.size() > 2) return InvalidArgument("Gemm C must have rank <= 2");
      while (c.size() < 2) c.insert(c.begin(), 1);
      if ((c[0] != 1 && c[0] != m_) || (c[1] != 1 && c[1] != n_)) {
        return InvalidArgument("Gemm C " + ShapeToString(ctx.input(2).shape) +
                               " does not broadcast to [M, N]");
      }
      c_row_ = c[0] == 1 ? 0 : c[1];
      c_col_ = c[1] == 1 ? 0 : 1;
    }
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const T* a = inputs[0].as<const T>();
    const T* b = plain_weights_.Get<T>(inputs[1]);
    const T* c = inputs.size() > 2 ? inputs[2].as<const T>() : nullptr;
    T* y = outputs[0].as<T>();
    for (int64_t i = 0; i < m_; ++i) {
      for (int64_t j = 0; j < n_; ++j) {
        float sum = 0.f;
        for (int64_t k = 0; k < k_; ++k) {
          sum +=
              Elem<T>::Load(a[i * a_row_ + k * a_col_]) * Elem<T>::Load(b[k * b_row_ + j * b_col_]);
        }
        float v = alpha_ * sum;
        if (c) v += beta_ * Elem<T>::Load(c[i * c_row_ + j * c_col_]);
        y[i * n_ + j] = Elem<T>::Store(ApplyActivation(act_, v));
      }
    }
    return Status::Ok();
  }

 private:
  ActivationParams act_;        // none for plain Gemm
  PlainWeights plain_weights_;  // B as T, row-major
  float alpha_ = 1.f, beta_ = 1.f;
  bool trans_a_ = false, trans_b_ = false;
  int64_t m_ = 0, n_ = 0, k_ = 0;
  int64_t a_row_ = 0, a_col_ = 0, b_row_ = 0, b_col_ = 0, c_row_ = 0, c_col_ = 0;
};

}  // namespace

void RegisterGemmKernels(KernelRegistry& r) {
  RegisterKernel<GemmKernel<float>>(r, OpType::kGemm, DType::kF32);
  RegisterKernel<GemmKernel<Float16>>(r, OpType::kGemm, DType::kF16);
  // FusedGemm's weights may be packed or f16 (read through PlainWeights).
  RegisterKernel<GemmKernel<float>>(r, OpType::kFusedGemm, DType::kF32, kExecutorCpu,
                                    Isa::kReference, Layout::kPlain, AnyWeightLayoutTraits());
  RegisterKernel<GemmKernel<Float16>>(r, OpType::kFusedGemm, DType::kF16, kExecutorCpu,
                                      Isa::kReference, Layout::kPlain, AnyWeightLayoutTraits());
}

}  // namespace kiln::nn_ref
