// Reference MatMul with numpy semantics: batched, broadcast batch axes, 1-D operands promoted
// (A to a row, B to a column) and the promoted axis dropped from the result.
#include <algorithm>

#include "kernels/reference/cast_convert.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

template <typename T>
class MatMulKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    Shape a = ctx.input(0).shape;
    Shape b = ctx.input(1).shape;
    if (a.empty() || b.empty()) return InvalidArgument("MatMul operands must have rank >= 1");
    if (a.size() == 1) a.insert(a.begin(), 1);
    if (b.size() == 1) b.push_back(1);
    m_ = a[a.size() - 2];
    k_ = a.back();
    n_ = b.back();
    if (b[b.size() - 2] != k_) return InvalidArgument("MatMul inner dimensions differ");
    // Batch axes, right-aligned; each output batch maps to one A and one B matrix.
    const size_t rank = std::max(a.size(), b.size()) - 2;
    Shape ab(rank, 1), bb(rank, 1), batch(rank, 1);
    for (size_t i = 0; i < a.size() - 2; ++i) ab[rank - (a.size() - 2) + i] = a[i];
    for (size_t i = 0; i < b.size() - 2; ++i) bb[rank - (b.size() - 2) + i] = b[i];
    for (size_t i = 0; i < rank; ++i) {
      if (ab[i] != bb[i] && ab[i] != 1 && bb[i] != 1) {
        return InvalidArgument("MatMul batch axes do not broadcast");
      }
      batch[i] = std::max(ab[i], bb[i]);
    }
    const int64_t count = NumElements(batch);
    a_offsets_.assign(static_cast<size_t>(count), 0);
    b_offsets_.assign(static_cast<size_t>(count), 0);
    const std::vector<int64_t> a_strides = RowMajorStrides(ab);
    const std::vector<int64_t> b_strides = RowMajorStrides(bb);
    for (int64_t flat = 0; flat < count; ++flat) {
      int64_t rem = flat, ai = 0, bi = 0;
      for (size_t i = rank; i-- > 0;) {
        const int64_t coord = rem % batch[i];
        rem /= batch[i];
        if (ab[i] != 1) ai += coord * a_strides[i];
        if (bb[i] != 1) bi += coord * b_strides[i];
      }
      a_offsets_[static_cast<size_t>(flat)] = ai * m_ * k_;
      b_offsets_[static_cast<size_t>(flat)] = bi * k_ * n_;
    }
    return Status::Ok();
  }

  // One output row of float accumulators.
  size_t ScratchBytes() const override { return static_cast<size_t>(n_) * sizeof(float); }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    const T* a = inputs[0].as<const T>();
    const T* b = inputs[1].as<const T>();
    T* y = outputs[0].as<T>();
    float* acc = static_cast<float*>(scratch);
    for (size_t batch = 0; batch < a_offsets_.size(); ++batch) {
      const T* am = a + a_offsets_[batch];
      const T* bm = b + b_offsets_[batch];
      T* ym = y + static_cast<int64_t>(batch) * m_ * n_;
      for (int64_t i = 0; i < m_; ++i) {
        for (int64_t j = 0; j < n_; ++j) acc[j] = 0.f;
        // i-k-j order: B is read row by row, contiguously.
        for (int64_t k = 0; k < k_; ++k) {
          const float av = Elem<T>::Load(am[i * k_ + k]);
          const T* brow = bm + k * n_;
          for (int64_t j = 0; j < n_; ++j) acc[j] += av * Elem<T>::Load(brow[j]);
        }
        for (int64_t j = 0; j < n_; ++j) ym[i * n_ + j] = Elem<T>::Store(acc[j]);
      }
    }
    return Status::Ok();
  }

 private:
  int64_t m_ = 0, k_ = 0, n_ = 0;
  std::vector<int64_t> a_offsets_, b_offsets_;  // element offsets of each batch's matrices
};

}  // namespace

void RegisterMatMulKernels(KernelRegistry& r) {
  RegisterKernel<MatMulKernel<float>>(r, OpType::kMatMul, DType::kF32);
  RegisterKernel<MatMulKernel<Float16>>(r, OpType::kMatMul, DType::kF16);
}

}  // namespace kiln::nn_ref
