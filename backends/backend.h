// A backend is one target (backends/cpu, backends/opencl, backends/dsp, ...): the nodes it
// claims, with the reason it refuses the others and the time it expects for the ones it runs,
// and the executor that runs them. The compiler's placement and the runtime's executor factory
// and cost placement speak to backends only through this interface and the build's list
// (backends/backend_registry.h), so a new target is a new folder (docs/architecture.md).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "backends/backend_options.h"
#include "backends/executor.h"
#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "ir/rewriter.h"
#include "kernels/kernel_registry.h"

namespace kiln {

class ThreadPool;
struct KernelBinaries;  // serializer/kernel_binaries.h
struct DspProgramSet;   // ir/dsp_program.h

// What a loaded model file carries for executors, section by section (runtime/model.h fills it;
// null where the file has no such section).
struct ModelPayloads {
  std::shared_ptr<const KernelBinaries> kernel_binaries;  // GPU program binaries and tuning
  std::shared_ptr<const DspProgramSet> dsp_programs;      // DSP command streams and chains
};

// What a backend says about one node.
struct NodeClaim {
  std::optional<std::string> refusal;  // why it cannot run the node; nullopt: it claims it
  double estimated_us = 0;             // its estimate of the node's time, when claimed

  bool claimed() const { return !refusal.has_value(); }
  static NodeClaim Claimed(double us) { return {std::nullopt, us}; }
  static NodeClaim Refused(std::string why) { return {std::move(why), 0}; }
};

// What a backend's weight packing sees (the compiler's pack-weights pass, after placement): the
// graph through a rewriter the pass commits, the CPU ISA the file is packed for, the backends'
// options, and the counters the compiler's report shows for the pass.
struct WeightPackingContext {
  GraphRewriter& rw;
  Isa target_isa = Isa::kReference;
  const BackendOptions& options;
  std::map<std::string, int64_t>& counters;

  void Count(const std::string& counter, int64_t n = 1) { counters[counter] += n; }
};

// What a backend's compile-time lowering sees once nodes are placed and the streams and memory
// are planned: the graph, its plan (which the lowering may replace with one the compiler's
// memory planner made under extra lifetime constraints), and the payloads it adds to the file.
struct LoweringContext {
  const Graph& graph;
  ExecutionPlan& plan;
  const BackendOptions& options;
  // The compiler's one memory planner, for plan.schedule and the compile's aliasing options,
  // keeping each value (first) live until its node (second) has run: extra reads of a node
  // that reads more than its own inputs (a fused chain).
  std::function<Expected<MemoryPlan>(const std::vector<std::pair<ValueId, NodeId>>& extra_reads)>
      plan_memory;
  ModelPayloads& payloads;
  // What the compiler's report shows for the lowering ("dsp-streams": 12, ...).
  std::vector<std::pair<std::string, int64_t>> counters;
};

// What an executor is made for: the name asked for ("gpu:1"), the device named after its ':'
// ("" when none), the CPU ISA cap, the session's thread pool (may be null), and every backend's
// options.
struct ExecutorRequest {
  std::string requested;
  std::string device;
  Isa cpu_max_isa = Isa::kReference;
  ThreadPool* pool = nullptr;
  const BackendOptions* options = nullptr;  // never null when a session asks
};

class Backend {
 public:
  virtual ~Backend() = default;
  // Its one name: in the IR (Node::placement), the model file, the CLI and SessionOptions.
  virtual std::string_view name() const = 0;
  // Other names the CLI and SessionOptions::executors accept for it ("gpu" for "opencl").
  virtual std::vector<std::string_view> aliases() const { return {}; }

  // Whether it runs `node`, from its kernels and rules alone (no device is needed: the compiler
  // asks offline), and at what estimated cost.
  virtual NodeClaim Claim(const Graph& graph, const Node& node,
                          const BackendOptions& options) const = 0;
  // The cost of handing value `v` between host memory and this backend, either way (0 on the
  // host).
  virtual double TransferUs(const Graph& graph, ValueId v, const BackendOptions& options) const {
    return 0;
  }
  // Whether the compiler keeps an island of this backend's nodes only where its compute plus the
  // transfers at its edges beats the CPU (backends/cost_placement.h); otherwise every node it
  // claims is placed on it.
  virtual bool places_islands_by_cost() const { return false; }

  // Whether PackWeights has work in a compile whose CPU kernels are `target_isa` (the
  // pack-weights pass is skipped when none of the compile's backends has).
  virtual bool PacksWeights(Isa target_isa) const { return false; }
  // Rewrites the constant weights of the nodes placed on it into the layouts its kernels bind
  // in place, so that the runtime binds them from the file without repacking at load.
  virtual Status PackWeights(WeightPackingContext& ctx) const { return Status::Ok(); }

  // Its compile-time lowering, run by the compiler after placement and planning when it is the
  // compile's target backend: the payloads its executor reads from the file (the DSP's command
  // streams, the GPU's program binaries). Nothing by default.
  virtual Status Lower(LoweringContext& ctx) const { return Status::Ok(); }
  // What its executor reads from a loaded model file (GPU program binaries, DSP command
  // streams), put into its options where the caller set none. Session::Create(model) asks
  // every backend.
  virtual void AdoptFromModel(const ModelPayloads& model, BackendOptions& options) const {}
  // Its runtime executor. NotFound when the device is absent (the session then goes on without
  // it), InvalidArgument for a device it does not understand.
  virtual Expected<std::unique_ptr<Executor>> MakeExecutor(
      const ExecutorRequest& request) const = 0;
};

}  // namespace kiln
