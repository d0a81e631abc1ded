// Reorder: the same logical tensor rearranged from its input's layout into its output's
// (plain <-> NCHW8c; the same layout on both sides is a copy). Any dtype.
#include <cstring>

#include "ir/nchwc_convert.h"
#include "kernels/kernel_registry.h"

namespace kiln {
namespace {

class ReorderKernel : public Kernel {
 public:
  Status Prepare(const KernelContext& ctx) override {
    from_ = ctx.input(0).layout;
    to_ = ctx.output(0).layout;
    auto supported = [](Layout l) { return l == Layout::kPlain || l == Layout::kNCHW8c; };
    if (!supported(from_) || !supported(to_)) {
      return Unsupported("Reorder from " + std::string(LayoutName(from_)) + " to " +
                         std::string(LayoutName(to_)));
    }
    if (from_ != to_ && ctx.input(0).shape.size() != 4) {
      return InvalidArgument("Reorder to or from nchw8c needs a rank-4 tensor, not " +
                             ShapeToString(ctx.input(0).shape));
    }
    bytes_ = ctx.output(0).byte_size();
    return Status::Ok();
  }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void*) override {
    if (from_ == to_) {
      std::memcpy(outputs[0].data, inputs[0].data, bytes_);
      return Status::Ok();
    }
    if (!ConvertNCHW8c(inputs[0].data, outputs[0].data, DTypeSize(inputs[0].dtype),
                       *inputs[0].shape, to_ == Layout::kNCHW8c)) {
      return Unsupported("Reorder of " + std::string(DTypeName(inputs[0].dtype)) + " elements");
    }
    return Status::Ok();
  }

 private:
  Layout from_ = Layout::kPlain, to_ = Layout::kPlain;
  size_t bytes_ = 0;
};

}  // namespace

void RegisterReorderKernels(KernelRegistry& r) {
  KernelTraits traits;
  traits.any_data_layout = true;
  for (Layout out : {Layout::kPlain, Layout::kNCHW8c}) {
    RegisterKernel<ReorderKernel>(r, OpType::kReorder, DType::kUndefined, kExecutorCpu,
                                  Isa::kReference, out, traits);
  }
}

}  // namespace kiln
