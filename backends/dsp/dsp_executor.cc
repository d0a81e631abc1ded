// The DSP executor: claims the nodes the DSP target runs (a tiling fits its scratchpad), takes
// each node's command stream from the model file or plans it, validates it, and runs it on the
// host implementation of the target (kernels/dsp/dsp_engine).
#include "backends/dsp/dsp_executor.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "backends/dsp/kernels/dsp_chain.h"
#include "backends/host_executor.h"

namespace kiln {
namespace {

class DspNodeKernel;

// A fused chain of the model file (or re-planned for the executor's scratchpad). Armed once
// every member's kernel was created by this executor (all of it runs on the DSP): members
// then only record their operands, and the last member runs the chain's program.
struct DspChainRun {
  std::vector<int32_t> members;
  std::unique_ptr<DspChainOp> op;
  DspProgram program;
  std::vector<uint64_t> operand_bytes;
  std::vector<size_t> early_inputs;  // DspChainEarlyInputs: checked against the output per run
  std::vector<DspOperand> operands;
  std::vector<DspNodeKernel*> kernels;  // created so far, in member order
  bool armed = false;
};

class DspNodeKernel : public Kernel {
 public:
  DspNodeKernel(std::unique_ptr<DspOp> op, DspProgram program, bool instrument,
                std::shared_ptr<DspNodeStats> stats, const DspCostModel& cost)
      : op_(std::move(op)),
        program_(std::move(program)),
        instrument_(instrument),
        stats_(std::move(stats)),
        cost_(cost) {}

  Status Prepare(const KernelContext& ctx) override {
    const Node& node = ctx.node();
    std::vector<uint64_t> bytes = DspOperandBytes(ctx.graph(), node);
    KILN_RETURN_IF_ERROR(ValidateDspProgram(program_, *op_, bytes, node.inputs.size())
                             .WithContext("DSP command stream of " + DescribeNode(node)));
    operand_bytes_ = std::move(bytes);
    operands_.resize(operand_bytes_.size());
    num_inputs_ = node.inputs.size();
    stats_->planned = CountDspProgram(program_, *op_);
    stats_->cycles = DspProgramCycles(program_, *op_, cost_);
    stats_->scratch_bytes = program_.scratch_bytes;
    return Status::Ok();
  }
  size_t ScratchBytes() const override {
    size_t bytes = DspRunBytes(program_.scratch_bytes, instrument_);
    if (chain_ && chain_->armed) {
      bytes = std::max(bytes, DspRunBytes(chain_->program.scratch_bytes, instrument_));
    }
    return bytes;
  }
  // Estimated cycles of this node's own program (until a chain takes its counts).
  int64_t own_cycles() const { return stats_->cycles; }
  // Joins `chain` as member `index`; the last member arms it.
  void JoinChain(std::shared_ptr<DspChainRun> chain, size_t index) {
    chain_ = std::move(chain);
    index_ = index;
    chain_->kernels.push_back(this);
  }
  void ArmChain(const std::string& last_name) {
    for (DspNodeKernel* k : chain_->kernels) {
      if (k == this) continue;
      k->stats_->planned = {};
      k->stats_->cycles = 0;
      k->stats_->fused_into = last_name;
    }
    stats_->planned = CountDspProgram(chain_->program, *chain_->op);
    stats_->cycles = DspProgramCycles(chain_->program, *chain_->op, cost_);
    stats_->chain_length = static_cast<int64_t>(chain_->members.size());
    chain_->armed = true;
  }
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
    if (chain_ && chain_->armed) {
      // Earlier members only hand their operands to the last one.
      return index_ + 1 < chain_->members.size() ? Status::Ok() : RunChain(scratch);
    }
    return RunOwn(scratch);
  }

 private:
  Status RunOwn(void* scratch) {
    ++stats_->runs;
    return RunDspProgram(program_, *op_, operands_, scratch, instrument_, &stats_->counted,
                         &stats_->access);
  }

  // Runs the chain with every member's operands; if the chain's output shares memory with an
  // input an earlier member reads (a memory plan that let them overlap, as it may once that
  // member has run), runs the members' own programs in order instead: the members are
  // consecutive nodes, so that is the unfused schedule.
  Status RunChain(void* scratch) {
    DspChainRun& ch = *chain_;
    ch.operands.clear();
    for (size_t k = 0; k < ch.kernels.size(); ++k) {
      const DspNodeKernel& m = *ch.kernels[k];
      ch.operands.insert(ch.operands.end(), m.operands_.begin(),
                         m.operands_.begin() + static_cast<int64_t>(m.num_inputs_));
    }
    ch.operands.insert(ch.operands.end(), operands_.begin() + static_cast<int64_t>(num_inputs_),
                       operands_.end());
    bool overlap = false;
    for (size_t o = ch.op->num_inputs(); o < ch.operands.size(); ++o) {
      const DspOperand& out = ch.operands[o];
      for (size_t i : ch.early_inputs) {
        const DspOperand& in = ch.operands[i];
        overlap = overlap || (in.data && out.data && in.data < out.data + out.bytes &&
                              out.data < in.data + in.bytes);
      }
    }
    if (overlap) {
      ++stats_->unfused_runs;
      for (DspNodeKernel* k : ch.kernels) KILN_RETURN_IF_ERROR(k->RunOwn(scratch));
      return Status::Ok();
    }
    ++stats_->runs;
    return RunDspProgram(ch.program, *ch.op, ch.operands, scratch, instrument_, &stats_->counted,
                         &stats_->access);
  }

  std::unique_ptr<DspOp> op_;
  DspProgram program_;
  bool instrument_;
  std::shared_ptr<DspNodeStats> stats_;
  DspCostModel cost_;
  std::vector<uint64_t> operand_bytes_;
  std::vector<DspOperand> operands_;
  size_t num_inputs_ = 0;
  std::shared_ptr<DspChainRun> chain_;
  size_t index_ = 0;
};

class DspExecutor : public HostMemoryExecutor {
 public:
  explicit DspExecutor(DspOptions options) : options_(std::move(options)) {}
  std::string name() const override { return kExecutorDsp; }
  // Main memory is the host's (HostMemoryExecutor); the DSP reaches it by DMA only.

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
                                                  options_.instrument, stats, options_.cost);
    KILN_RETURN_IF_ERROR(kernel->Prepare(KernelContext(graph, node)));
    stats_.push_back(std::move(stats));
    KILN_RETURN_IF_ERROR(JoinChain(graph, node, kernel.get()));
    return std::unique_ptr<Kernel>(std::move(kernel));
  }

  Expected<std::unique_ptr<DeviceBuffer>> Allocate(size_t) override {
    return Internal("the DSP executor shares host memory; the session allocates it");
  }

  const std::vector<std::shared_ptr<DspNodeStats>>& stats() const { return stats_; }

 private:
  // Makes `kernel` a member of the model's chain through `node`, if there is one; the last
  // member arms the chain when every earlier member is a kernel of this executor (the session
  // creates kernels in node order, so they were created just before).
  Status JoinChain(const Graph& graph, const Node& node, DspNodeKernel* kernel) {
    if (!options_.programs || !options_.chains) return Status::Ok();
    const auto id = static_cast<int32_t>(&node - &graph.node(0));
    auto it = options_.programs->chains.lower_bound(id);
    if (it == options_.programs->chains.end()) return Status::Ok();
    const std::vector<int32_t>& members = it->second.members;
    if (members.empty() || id < members.front()) return Status::Ok();
    const size_t index = static_cast<size_t>(id - members.front());
    auto& run = chains_[it->first];
    if (index == 0) {
      run = std::make_shared<DspChainRun>();
      run->members = members;
    } else if (!run || run->kernels.size() != index) {
      return Status::Ok();  // an earlier member runs elsewhere: every member runs on its own
    }
    kernel->JoinChain(run, index);
    if (index + 1 < members.size()) return Status::Ok();
    // The last member: build, plan (or take) and validate the chain's program.
    auto op = MakeDspChain(graph, members);
    if (!op.ok()) return op.status().WithContext("DSP chain ending at " + DescribeNode(node));
    run->op = std::move(op).value();
    if (options_.replan) {
      // Re-planned for another scratchpad: fused only where it still saves estimated cycles.
      auto planned = run->op->Plan(options_.scratch_bytes);
      if (!planned.ok()) return Status::Ok();  // no fused tiling fits: members run on their own
      int64_t own = 0;
      for (const DspNodeKernel* k : run->kernels) own += k->own_cycles();
      if (DspProgramCycles(*planned, *run->op, options_.cost) >= own) {
        return Status::Ok();
      }
      run->program = std::move(planned).value();
    } else {
      run->program = it->second;
    }
    run->operand_bytes = DspChainOperandBytes(graph, members);
    run->early_inputs = DspChainEarlyInputs(graph, members);
    KILN_RETURN_IF_ERROR(
        ValidateDspProgram(run->program, *run->op, run->operand_bytes, run->op->num_inputs())
            .WithContext("DSP chain ending at " + DescribeNode(node)));
    kernel->ArmChain(node.name);
    return Status::Ok();
  }

  // The model file's command stream for this node, if it has one.
  const DspProgram* FileProgram(const Graph& graph, const Node& node) const {
    if (!options_.programs || options_.replan) return nullptr;
    const auto id = static_cast<int32_t>(&node - &graph.node(0));
    auto it = options_.programs->by_node.find(id);
    return it == options_.programs->by_node.end() ? nullptr : &it->second;
  }

  DspOptions options_;
  std::vector<std::shared_ptr<DspNodeStats>> stats_;
  std::map<int32_t, std::shared_ptr<DspChainRun>> chains_;  // by last member
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
