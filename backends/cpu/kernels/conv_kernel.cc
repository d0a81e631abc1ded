// The plain ONNX Conv op (f32) on the CPU fast kernels, for graphs run without the compiler's
// fusion (which turns every Conv into a FusedConv with offline-packed weights): the adapter
// packs the plain OIHW constant into its algorithm's layout once in Prepare(), a private copy
// (uncompiled graphs have nothing packed offline). Non-constant weights, 3-D convolutions and
// other dtypes go to the reference kernel.
#include <vector>

#include "backends/cpu/kernels/conv.h"
#include "backends/cpu/kernels/conv_packing.h"
#include "backends/cpu/kernels/cpu_kernel_util.h"
#include "backends/cpu/cpu_kernels.h"

namespace kiln::cpu {
namespace {

class ConvCpu : public CpuKernelBase {
 public:
  using CpuKernelBase::CpuKernelBase;

  Status Prepare(const KernelContext& ctx) override {
    const Value& w = ctx.input(1);
    const bool bias_ok = !ctx.has_input(2) || ctx.input(2).dtype == DType::kF32;
    auto geometry = ResolveConv2d(ctx.attrs(), ctx.input(0).shape, w.shape);
    if (!w.is_constant() || !bias_ok || !geometry.ok()) return UseReference(ctx);
    KILN_ASSIGN_OR_RETURN(const CpuKernels* kernels, KernelsForIsa(isa_));
    geometry_ = *geometry;
    const ConvAlgo algo = ChooseConvAlgo(geometry_);
    KILN_ASSIGN_OR_RETURN(
        weights_, PackConvWeights(geometry_, ConvWeightLayout(algo), w.constant->as<float>()));
    const int threads = ctx.thread_pool() ? ctx.thread_pool()->num_threads() : 1;
    conv_ = CpuConv(geometry_, algo, *kernels, threads);
    pool_ = ctx.thread_pool();
    return Status::Ok();
  }

 protected:
  size_t FastScratchBytes() const override { return conv_.ScratchBytes(); }
  Status RunFast(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
                 void* scratch) override {
    const float* bias = inputs.size() > 2 ? inputs[2].as<const float>() : nullptr;
    conv_.Run(inputs[0].as<const float>(), weights_.data(), bias, nullptr, ActivationParams{},
              outputs[0].as<float>(), scratch, pool_);
    return Status::Ok();
  }

 private:
  Conv2dGeometry geometry_;
  std::vector<float> weights_;
  CpuConv conv_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace

void RegisterCpuConvKernels(KernelRegistry& r) { RegisterCpuF32<ConvCpu>(r, OpType::kConv); }

}  // namespace kiln::cpu
