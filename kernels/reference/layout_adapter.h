// Runs a reference kernel written for plain tensors on values stored NCHW8c (ir/layout.h):
// blocked inputs are unpacked into scratch before the wrapped kernel runs, and a blocked
// output is packed from scratch after. The oracle stays the one plain loop nest; only the
// fast kernels read the blocked layout directly.
#pragma once

#include <memory>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/kernel_registry.h"
#include "ir/nchwc_convert.h"

namespace kiln {

template <typename Inner>
class NCHW8cAdapter : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    blocked_in_.assign(ctx.num_inputs(), false);
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i) || ctx.input(i).layout != Layout::kNCHW8c) continue;
      if (ctx.input(i).shape.size() != 4) return Internal("an nchw8c input of rank != 4");
      blocked_in_[i] = true;
    }
    blocked_out_ = ctx.has_output(0) && ctx.output(0).layout == Layout::kNCHW8c;
    if (blocked_out_ && ctx.output(0).shape.size() != 4) {
      return Internal("an nchw8c output of rank != 4");
    }
    KILN_RETURN_IF_ERROR(inner_.Prepare(ctx));
    // Scratch: the inner kernel's, then one plain copy per blocked input and the output.
    offsets_.clear();
    size_t at = Align(inner_.ScratchBytes());
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      offsets_.push_back(at);
      if (blocked_in_[i]) at += Align(ctx.input(i).byte_size());
    }
    out_offset_ = at;
    if (blocked_out_) at += Align(ctx.output(0).byte_size());
    scratch_ = at;
    views_.reserve(ctx.num_inputs());  // Run allocates nothing
    out_views_.reserve(ctx.num_outputs());
    return Status::Ok();
  }

  size_t ScratchBytes() const override { return scratch_; }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    auto* base = static_cast<uint8_t*>(scratch);
    views_.assign(inputs.begin(), inputs.end());
    for (size_t i = 0; i < inputs.size() && i < blocked_in_.size(); ++i) {
      if (!blocked_in_[i] || !inputs[i].data) continue;
      views_[i].data = base + offsets_[i];
      ConvertNCHW8c(inputs[i].data, views_[i].data, DTypeSize(inputs[i].dtype), *inputs[i].shape,
                    false);
    }
    out_views_.assign(outputs.begin(), outputs.end());
    if (blocked_out_) out_views_[0].data = base + out_offset_;
    KILN_RETURN_IF_ERROR(inner_.Run(views_, out_views_, base));
    if (blocked_out_) {
      ConvertNCHW8c(out_views_[0].data, outputs[0].data, DTypeSize(outputs[0].dtype),
                    *outputs[0].shape, true);
    }
    return Status::Ok();
  }

 private:
  static size_t Align(size_t n) { return (n + 63) / 64 * 64; }

  Inner inner_;
  std::vector<bool> blocked_in_;
  bool blocked_out_ = false;
  std::vector<size_t> offsets_;
  size_t out_offset_ = 0, scratch_ = 0;
  std::vector<TensorView> views_, out_views_;
};

// Traits of an adapted reference kernel: data in any layout, weights in any packed layout.
inline KernelTraits AnyLayoutTraits() {
  KernelTraits t;
  t.any_weight_layout = true;
  t.any_data_layout = true;
  return t;
}

}  // namespace kiln
