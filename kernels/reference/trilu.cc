// Reference Trilu: element (i, j) of each matrix is kept when j - i >= k (upper) or
// j - i <= k (lower), else zero; k defaults to 0 and may be any int64 (past the matrix it
// keeps all or nothing).
#include "kernels/reference/trilu.h"

#include <algorithm>
#include <cstring>

namespace kiln {

Status TriluKernel::Prepare(const KernelContext& ctx) {
  const Shape& x = ctx.input(0).shape;  // rank >= 2 (InferTrilu)
  rows_ = x[x.size() - 2];
  cols_ = x[x.size() - 1];
  matrices_ = 1;
  for (size_t d = 0; d + 2 < x.size(); ++d) matrices_ *= x[d];
  elem_bytes_ = DTypeSize(ctx.input(0).dtype);
  upper_ = ctx.attrs().GetInt("upper", 1) != 0;
  return Status::Ok();
}

Status TriluKernel::Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                        void*) {
  int64_t k = 0;
  if (inputs.size() > 1 && inputs[1].data != nullptr) k = *inputs[1].as<const int64_t>();
  const auto* src = static_cast<const uint8_t*>(inputs[0].data);
  auto* dst = static_cast<uint8_t*>(outputs[0].data);
  const size_t row_bytes = static_cast<size_t>(cols_) * elem_bytes_;
  for (int64_t m = 0; m < matrices_; ++m) {
    for (int64_t i = 0; i < rows_; ++i) {
      // Kept columns form one run [begin, end) per row; clamp k + i to the row first so that
      // an extreme k cannot overflow.
      const int64_t diag = std::clamp<int64_t>(k, -rows_ - 1, cols_ + 1) + i;
      const int64_t begin = upper_ ? std::clamp<int64_t>(diag, 0, cols_) : 0;
      const int64_t end = upper_ ? cols_ : std::clamp<int64_t>(diag + 1, 0, cols_);
      std::memset(dst, 0, row_bytes);
      if (end > begin) {
        std::memcpy(dst + static_cast<size_t>(begin) * elem_bytes_,
                    src + static_cast<size_t>(begin) * elem_bytes_,
                    static_cast<size_t>(end - begin) * elem_bytes_);
      }
      src += row_bytes;
      dst += row_bytes;
    }
  }
  return Status::Ok();
}

}  // namespace kiln
