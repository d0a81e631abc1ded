// Reference QLookup: an elementwise function of one quantized input as a table of output codes
// (docs/quantization.md). The compiler fills the table by evaluating the float function it
// replaces (Sigmoid, Tanh, HardSwish, SiLU, any chain of elementwise float ops of one input).
//   8-bit input: y = table[x] over 256 entries indexed by the code (u8: x, i8: x + 128); the
//                table holds output codes of the output type (u8, i8 or i16).
//   i16 input:   513 knots at codes -32768 + 128 k; with u = x + 32768, k = u >> 7, f = u & 127,
//                y = clamp(t[k] + ((t[k+1] - t[k]) * f + 64) >> 7) (arithmetic shift), the
//                linear interpolation TFLite's int16 lookups use: 65,536 entries would cost
//                128 KiB per op.
#include <algorithm>
#include <vector>

#include "kernels/reference/quantized_kernels.h"
#include "kernels/reference/quantized_util.h"

namespace kiln::nn_ref {
namespace {

class QLookupKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    // The schema guarantees a constant table of 256 (8-bit input) or 513 (i16 input) codes of
    // the output's type.
    const DType in = ctx.input(0).dtype;
    out_type_ = ctx.output(0).dtype;
    const Value& t = ctx.input(1);
    interpolate_ = in == DType::kI16;
    const int64_t entries = t.num_elements();
    table_.resize(static_cast<size_t>(entries));
    for (int64_t k = 0; k < entries; ++k) {
      table_[static_cast<size_t>(k)] = LoadQuantized(t.constant->data(), out_type_, k);
    }
    signed_input_ = in == DType::kI8;
    lo_ = QuantCodeMin(out_type_);
    hi_ = QuantCodeMax(out_type_);
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const int64_t n = outputs[0].num_elements();
    void* y = outputs[0].data;
    // Each element is read before it is written: in-place safe (same element size both ways
    // whenever the planner aliases the two).
    if (interpolate_) {
      const auto* x = static_cast<const int16_t*>(inputs[0].data);
      for (int64_t i = 0; i < n; ++i) {
        const int32_t u = int32_t{x[i]} + 32768;
        const int32_t k = u >> 7, f = u & 127;
        const int32_t a = table_[static_cast<size_t>(k)], b = table_[static_cast<size_t>(k + 1)];
        const int32_t v = a + (((b - a) * f + 64) >> 7);
        StoreQuantized(y, out_type_, i, std::clamp(v, lo_, hi_));
      }
      return Status::Ok();
    }
    const auto* x = static_cast<const uint8_t*>(inputs[0].data);
    // The i8 code x is the byte x + 128 with the top bit flipped.
    const uint8_t flip = signed_input_ ? 0x80 : 0;
    for (int64_t i = 0; i < n; ++i) StoreQuantized(y, out_type_, i, table_[x[i] ^ flip]);
    return Status::Ok();
  }

 private:
  bool interpolate_ = false, signed_input_ = false;
  DType out_type_ = DType::kU8;
  int32_t lo_ = 0, hi_ = 255;
  std::vector<int32_t> table_;
};

}  // namespace

void RegisterQLookupKernels(KernelRegistry& r) {
  RegisterKernel<QLookupKernel>(r, OpType::kQLookup, DType::kU8);
  RegisterKernel<QLookupKernel>(r, OpType::kQLookup, DType::kI8);
  RegisterKernel<QLookupKernel>(r, OpType::kQLookup, DType::kI16);
}

}  // namespace kiln::nn_ref
