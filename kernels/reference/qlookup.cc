// Reference QLookup: y = table[x] over a 256-entry table indexed by the input code (u8: x,
// i8: x + 128). The compiler fills the table by evaluating the float function it replaces
// (Sigmoid, Tanh, HardSwish, SiLU, any chain of elementwise float ops of one input) on all 256
// codes, so every quantized elementwise function is one exact table read.
#include <cstring>

#include "kernels/reference/quantized_kernels.h"

namespace kiln::nn_ref {
namespace {

class QLookupKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    signed_input_ = ctx.input(0).dtype == DType::kI8;
    std::memcpy(table_, ctx.input(1).constant->data(), sizeof(table_));
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    const auto* x = static_cast<const uint8_t*>(inputs[0].data);
    auto* y = static_cast<uint8_t*>(outputs[0].data);
    const int64_t n = outputs[0].num_elements();
    // The i8 code x is the byte x + 128 with the top bit flipped; in-place safe.
    const uint8_t flip = signed_input_ ? 0x80 : 0;
    for (int64_t i = 0; i < n; ++i) y[i] = table_[x[i] ^ flip];
    return Status::Ok();
  }

 private:
  bool signed_input_ = false;
  uint8_t table_[256] = {};  // output bytes (u8 or i8 codes)
};

}  // namespace

void RegisterQLookupKernels(KernelRegistry& r) {
  RegisterKernel<QLookupKernel>(r, OpType::kQLookup, DType::kU8);
  RegisterKernel<QLookupKernel>(r, OpType::kQLookup, DType::kI8);
}

}  // namespace kiln::nn_ref
