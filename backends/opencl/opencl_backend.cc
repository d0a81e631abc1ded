// The OpenCL (GPU) backend: claims the nodes its kernels handle (f32 tensors in GPU memory),
// costed by a throughput model with a launch cost and host<->device copies, and makes the
// OpenCL executor on the device asked for ("opencl:N", alias "gpu:N").
#include <cstdlib>

#include "backends/backend.h"
#include "backends/cost_placement.h"
#include "backends/kernel_weight_packing.h"
#include "backends/opencl/gpu_options.h"
#include "backends/opencl/opencl_executor.h"
#include "kernels/kernel_registry.h"

namespace kiln {
namespace {

// A discrete GPU's throughput relative to the CPU backend's model (backends/cpu/cpu_backend.cc).
constexpr double kMacsPerUs = 400000;
constexpr double kElemsPerUs = 100000;
constexpr double kNodeUs = 10;            // kernel launch
constexpr double kCopyBytesPerUs = 8000;  // host <-> GPU copies

// Why the OpenCL kernels cannot run this node, from the kernel registry alone (no device
// needed); nullopt when they can.
std::optional<std::string> GpuRefusal(const Graph& graph, const Node& node) {
  const KernelRegistry& r = KernelRegistry::Global();
  if (r.FindEntry(graph, node, kExecutorOpenCL, Isa::kOpenCL)) return std::nullopt;
  const std::string op(OpTypeName(node.op));
  bool any = false, dtype_ok = false;
  const DType dtype = KernelRegistry::DispatchDType(graph, node);
  for (const auto& e : r.entries()) {
    if (e.key.op != node.op || e.key.backend != kExecutorOpenCL) continue;
    any = true;
    dtype_ok = dtype_ok || e.key.dtype == dtype || e.key.dtype == DType::kUndefined;
  }
  if (!any) return "no OpenCL kernel for " + op;
  if (!dtype_ok) {
    return "no OpenCL " + op + " kernel for " + std::string(DTypeName(dtype)) +
           " (the GPU kernels compute f32)";
  }
  for (ValueId v : node.outputs) {
    if (v != kNoValue && graph.value(v).dtype != DType::kF32) {
      return "output '" + graph.value(v).name + "' is " +
             std::string(DTypeName(graph.value(v).dtype)) + " (GPU memory holds f32 tensors)";
    }
  }
  for (ValueId v : node.inputs) {
    if (v != kNoValue && !graph.value(v).is_constant() && graph.value(v).dtype != DType::kF32) {
      return "input '" + graph.value(v).name + "' is " +
             std::string(DTypeName(graph.value(v).dtype)) + " (GPU memory holds f32 tensors)";
    }
  }
  return "the OpenCL " + op + " kernels do not handle this node's shapes or attributes";
}

class OpenClBackend : public Backend {
 public:
  std::string_view name() const override { return kExecutorOpenCL; }
  std::vector<std::string_view> aliases() const override { return {"gpu"}; }

  NodeClaim Claim(const Graph& graph, const Node& node, const BackendOptions&) const override {
    if (auto why = GpuRefusal(graph, node)) return NodeClaim::Refused(std::move(*why));
    const NodeWork w = EstimateNodeWork(graph, node);
    return NodeClaim::Claimed(kNodeUs + w.macs / kMacsPerUs + w.elems / kElemsPerUs);
  }

  double TransferUs(const Graph& graph, ValueId v, const BackendOptions&) const override {
    return kNodeUs + static_cast<double>(graph.value(v).byte_size()) / kCopyBytesPerUs;
  }

  bool PacksWeights(Isa) const override { return true; }
  Status PackWeights(WeightPackingContext& ctx) const override {
    return PackWeightsForKernels(ctx, kExecutorOpenCL, Isa::kOpenCL);
  }

  Status Lower(LoweringContext& ctx) const override {
    const GpuOptions gpu = ctx.options.Get<GpuOptions>();
    if (!gpu.build_binaries) return Status::Ok();
    KILN_ASSIGN_OR_RETURN(
        KernelBinaries binaries,
        BuildKernelBinaries(ctx.graph, gpu, {GpuPrecision::kFp32, GpuPrecision::kFp16}));
    int64_t bytes = 0;
    for (const auto& p : binaries.programs) bytes += static_cast<int64_t>(p.binary.size());
    ctx.counters.emplace_back("gpu-programs", static_cast<int64_t>(binaries.programs.size()));
    ctx.counters.emplace_back("gpu-program-bytes", bytes);
    ctx.counters.emplace_back("gpu-tuned-kernels", static_cast<int64_t>(binaries.tuning.size()));
    ctx.payloads.kernel_binaries = std::make_shared<const KernelBinaries>(std::move(binaries));
    return Status::Ok();
  }

  void AdoptFromModel(const ModelPayloads& model, BackendOptions& options) const override {
    GpuOptions& gpu = options.Mutable<GpuOptions>();
    if (!gpu.binaries) gpu.binaries = model.kernel_binaries;
  }

  Expected<std::unique_ptr<Executor>> MakeExecutor(const ExecutorRequest& r) const override {
    GpuOptions gpu = r.options ? r.options->Get<GpuOptions>() : GpuOptions{};
    if (!r.device.empty()) {
      if (r.device.size() > 3 || r.device.find_first_not_of("0123456789") != std::string::npos) {
        return InvalidArgument("executor '" + r.requested +
                               "': expected opencl:N or gpu:N, N a device index");
      }
      gpu.device = std::atoi(r.device.c_str());
    }
    return MakeOpenClExecutor(gpu);
  }
};

}  // namespace

std::unique_ptr<Backend> MakeOpenClBackend() { return std::make_unique<OpenClBackend>(); }

}  // namespace kiln
