// The DSP executor: claims the nodes the DSP target runs (a tiling fits its scratchpad), takes
// each node's command stream from the model file or plans it, validates it, and runs it on the
// host implementation of the target (kernels/dsp/dsp_engine).
#include "runtime/dsp/dsp_executor.h"

#include <cstring>

namespace kiln {
namespace {

class DspNodeKernel : public Kernel {
 public:
  DspNodeKernel(std::unique_ptr<DspOp> op, DspProgram program, bool instrument,
                std::shared_ptr<DspNodeStats> stats)
      : op_(std::move(op)),
        program_(std::move(program)),
        instrument_(instrument),
        stats_(std::move(stats)) {}

  Status Prepare(const KernelContext& ctx) override {
    const Node& node = ctx.node();
    std::vector<uint64_t> bytes;
    for (size_t s = 0; s < node.inputs.size() + node.outputs.size(); ++s) {
      bytes.push_back(DspOperandBytes(ctx.graph(), node, s));
    }
    KILN_RETURN_IF_ERROR(ValidateDspProgram(program_, *op_, bytes, node.inputs.size())
                             .WithContext("DSP command stream of " + DescribeNode(node)));
    operand_bytes_ = std::move(bytes);
    operands_.resize(operand_bytes_.size());
    stats_->planned = CountDspProgram(program_, *op_);
    stats_->scratch_bytes = program_.scratch_bytes;
    return Status::Ok();
  }
  size_t ScratchBytes() const override { return DspRunBytes(program_.scratch_bytes, instrument_); }
  Status Run(std::span<const TensorView> inputs, std::span<const TensorView> outputs,
             void* scratch) override {
    // Main-memory operands: the only pointers the DMA engine receives.
    size_t s = 0;
    for (const TensorView& v : inputs) {
      operands_[s] = {static_cast<uint8_t*>(v.data), operand_bytes_[s]};
      ++s;
    }
    for (const TensorView& v : outputs) {
      operands_[s] = {static_cast<uint8_t*>(v.data), operand_bytes_[s]};
      ++s;
    }
    ++stats_->runs;
    return RunDspProgram(program_, *op_, operands_, scratch, instrument_, &stats_->counted,
                         &stats_->access);
  }

 private:
  std::unique_ptr<DspOp> op_;
  DspProgram program_;
  bool instrument_;
  std::shared_ptr<DspNodeStats> stats_;
  std::vector<uint64_t> operand_bytes_;
  std::vector<DspOperand> operands_;
};

class DspExecutor : public Executor {
 public:
  explicit DspExecutor(DspOptions options) : options_(std::move(options)) {}
  std::string name() const override { return kExecutorDsp; }
  ExecutorKind kind() const override { return ExecutorKind::kDsp; }
  // Main memory is the host's; the DSP reaches it by DMA only.
  bool host_memory() const override { return true; }

  bool CanRun(const Graph& graph, const Node& node) const override {
    if (const DspProgram* p = FileProgram(graph, node)) {
      (void)p;
      return MakeDspOp(graph, node).ok();
    }
    return !DspFallbackReason(graph, node, options_.scratch_bytes).has_value();
  }

  Expected<std::unique_ptr<Kernel>> CreateKernel(const Graph& graph, const Node& node) override {
    auto made = MakeDspOp(graph, node);
    if (!made.ok()) return made.status().WithContext(DescribeNode(node));
    std::unique_ptr<DspOp> op = std::move(made).value();
    auto stats = std::make_shared<DspNodeStats>();
    stats->node = node.name;
    stats->op = node.op;
    DspProgram program;
    if (const DspProgram* p = FileProgram(graph, node)) {
      program = *p;
      stats->from_file = true;
    } else {
      auto planned = op->Plan(options_.scratch_bytes);
      if (!planned.ok()) return planned.status().WithContext(DescribeNode(node));
      program = std::move(planned).value();
    }
    auto kernel = std::make_unique<DspNodeKernel>(std::move(op), std::move(program),
                                                  options_.instrument, stats);
    KILN_RETURN_IF_ERROR(kernel->Prepare(KernelContext(graph, node)));
    stats_.push_back(std::move(stats));
    return std::unique_ptr<Kernel>(std::move(kernel));
  }

  Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t) override {
    return Internal("the DSP executor shares host memory; the session allocates it");
  }
  Status Upload(const void* src, void* dst, size_t bytes, DType, int) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }
  Status Download(void* src, void* dst, size_t bytes, DType, int) override {
    if (bytes) std::memcpy(dst, src, bytes);
    return Status::Ok();
  }

  const std::vector<std::shared_ptr<DspNodeStats>>& stats() const { return stats_; }

 private:
  // The model file's command stream for this node, if it has one.
  const DspProgram* FileProgram(const Graph& graph, const Node& node) const {
    if (!options_.programs || options_.replan) return nullptr;
    const auto id = static_cast<int32_t>(&node - &graph.node(0));
    auto it = options_.programs->by_node.find(id);
    return it == options_.programs->by_node.end() ? nullptr : &it->second;
  }

  DspOptions options_;
  std::vector<std::shared_ptr<DspNodeStats>> stats_;
};

}  // namespace

std::unique_ptr<Executor> MakeDspExecutor(const DspOptions& options) {
  return std::make_unique<DspExecutor>(options);
}

const std::vector<std::shared_ptr<DspNodeStats>>* DspStatsOf(const Executor& executor) {
  const auto* dsp = dynamic_cast<const DspExecutor*>(&executor);
  return dsp ? &dsp->stats() : nullptr;
}

}  // namespace kiln
