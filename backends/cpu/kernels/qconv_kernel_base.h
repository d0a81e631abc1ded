// What the int8 QConv and QGemm CPU kernels share once their Prepare has filled a QConvSpec:
// the ISA's table, the prepared QConvCpu, its scratch and its Run.
#pragma once

#include <span>
#include <string>

#include "kernels/cpu_features.h"
#include "backends/cpu/tables/int8_table.h"
#include "backends/cpu/kernels/qconv.h"
#include "kernels/kernel.h"

namespace kiln::cpu {

class QConvCpuKernelBase : public Kernel {
 public:
  // `residual_input`: the node input holding the residual codes, or -1 (QGemm has none).
  QConvCpuKernelBase(Isa isa, int residual_input) : isa_(isa), residual_input_(residual_input) {}

  size_t ScratchBytes() const override { return conv_.ScratchBytes(); }

  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    const void* residual =
        residual_input_ >= 0 && inputs.size() > static_cast<size_t>(residual_input_)
            ? inputs[static_cast<size_t>(residual_input_)].data
            : nullptr;
    conv_.Run(inputs[0].data, static_cast<const int8_t*>(inputs[1].data), residual, outputs[0].data,
              scratch, pool_);
    return Status::Ok();
  }

 protected:
  // The table for this kernel's ISA, the pool and its thread count, for Prepare.
  Expected<const Int8Kernels*> Table(const KernelContext& ctx) {
    const Int8Kernels* k = GetInt8Kernels(isa_);
    if (!k) {
      return Unsupported("this CPU cannot run the " + std::string(IsaName(isa_)) + " int8 kernels");
    }
    pool_ = ctx.thread_pool();
    threads_ = pool_ ? pool_->num_threads() : 1;
    return k;
  }

  Isa isa_;
  int residual_input_;
  int threads_ = 1;
  QConvCpu conv_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace kiln::cpu
