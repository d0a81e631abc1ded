// Reference Pad-11..23: constant, reflect, edge and wrap modes, optional axes; negative pads
// crop. Pad only moves elements, so one kernel per element width serves every dtype.
#include <cstring>

#include "ir/ops/pad_params.h"
#include "ir/ops/resize_params.h"
#include "kernels/reference/nn_kernels.h"

namespace kiln::nn_ref {
namespace {

template <typename Word>  // an unsigned integer as wide as the element
class PadKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    const Shape& x = ctx.input(0).shape;
    const Shape& y = ctx.output(0).shape;
    rank_ = x.size();
    if (rank_ == 0 || rank_ > kMaxRank) {
      return Unsupported("Pad supports ranks 1.." + std::to_string(kMaxRank) + ", got " +
                         std::to_string(rank_));
    }
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> given, ConstantValueInts(&ctx.input(1), "pads"));
    std::vector<int64_t> axes;
    const bool has_axes = ctx.num_inputs() > 3 && ctx.has_input(3);
    if (has_axes) {
      KILN_ASSIGN_OR_RETURN(axes, ConstantValueInts(&ctx.input(3), "axes"));
    }
    KILN_ASSIGN_OR_RETURN(PadParams params,
                          ResolvePad(ctx.attrs(), x, given, has_axes ? &axes : nullptr));
    const std::vector<int64_t>& pads = params.pads;
    const PadMode mode = params.mode;
    const std::vector<int64_t> strides = RowMajorStrides(x);
    // Per axis, output index -> input element offset along that axis, or -1 for "constant".
    source_.assign(rank_, {});
    for (size_t a = 0; a < rank_; ++a) {
      if (y[a] != x[a] + pads[a] + pads[rank_ + a]) {
        return InvalidArgument("Pad output shape does not match pads");
      }
      source_[a].resize(static_cast<size_t>(y[a]));
      for (int64_t o = 0; o < y[a]; ++o) {
        int64_t i = o - pads[a];
        if (i < 0 || i >= x[a]) {
          if (mode == PadMode::kConstant) {
            i = -1;
          } else if (mode == PadMode::kEdge) {
            i = i < 0 ? 0 : x[a] - 1;
          } else if (mode == PadMode::kWrap) {  // the opposite end continues periodically
            i = ((i % x[a]) + x[a]) % x[a];
          } else {  // reflect about the border element, which is not repeated
            if (x[a] < 2) return InvalidArgument("reflect padding needs extent >= 2");
            i = i < 0 ? -i : 2 * (x[a] - 1) - i;
            if (i < 0 || i >= x[a]) return InvalidArgument("reflect pads exceed the extent - 1");
          }
        }
        source_[a][static_cast<size_t>(o)] = i < 0 ? -1 : i * strides[a];
      }
    }
    out_shape_ = y;
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const Word* x = inputs[0].as<const Word>();
    Word* y = outputs[0].as<Word>();
    Word fill{};  // zero bits are 0 for every dtype, f16 included
    if (inputs.size() > 2 && inputs[2].data) std::memcpy(&fill, inputs[2].data, sizeof(Word));
    const std::vector<int64_t>& last = source_[rank_ - 1];
    const int64_t row_len = out_shape_[rank_ - 1];
    const int64_t rows = row_len == 0 ? 0 : NumElements(out_shape_) / row_len;
    Coords coord{};  // odometer over the outer axes
    for (int64_t r = 0; r < rows; ++r) {
      int64_t base = 0;
      bool outside = false;
      for (size_t a = 0; a + 1 < rank_; ++a) {
        const int64_t s = source_[a][static_cast<size_t>(coord[a])];
        outside = outside || s < 0;
        base += s;
      }
      Word* yrow = y + r * row_len;
      for (int64_t j = 0; j < row_len; ++j) {
        const int64_t s = last[static_cast<size_t>(j)];
        yrow[j] = (outside || s < 0) ? fill : x[base + s];
      }
      for (size_t a = rank_ - 1; a-- > 0;) {
        if (++coord[a] < out_shape_[a]) break;
        coord[a] = 0;
      }
    }
    return Status::Ok();
  }

 private:
  size_t rank_ = 0;
  Shape out_shape_;
  std::vector<std::vector<int64_t>> source_;
};

}  // namespace

void RegisterPadKernels(KernelRegistry& r) {
  RegisterKernel<PadKernel<uint32_t>>(r, OpType::kPad, DType::kF32);
  RegisterKernel<PadKernel<uint16_t>>(r, OpType::kPad, DType::kF16);
  RegisterKernel<PadKernel<uint8_t>>(r, OpType::kPad, DType::kI8);
  RegisterKernel<PadKernel<uint8_t>>(r, OpType::kPad, DType::kU8);
  RegisterKernel<PadKernel<uint16_t>>(r, OpType::kPad, DType::kI16);
  RegisterKernel<PadKernel<uint8_t>>(r, OpType::kPad, DType::kBool);
  RegisterKernel<PadKernel<uint32_t>>(r, OpType::kPad, DType::kI32);
  RegisterKernel<PadKernel<uint64_t>>(r, OpType::kPad, DType::kI64);
}

}  // namespace kiln::nn_ref
