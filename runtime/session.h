// A Session runs one immutable graph by its execution plan: the activation arena, buffers,
// kernels and stream workers are all set up once in Create(), and Run() only executes (no
// allocation, no thread creation).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/backend_options.h"
#include "backends/cost_placement.h"
#include "backends/executor.h"
#include "ir/execution_plan.h"
#include "ir/graph.h"
#include "ir/host_tensor.h"

namespace kiln {

class Model;

// What a failing accelerator does to a session (SessionOptions::on_accelerator_failure).
enum class AcceleratorFailure {
  kFallBackToCpu,  // leave it out for the rest of the session; the CPU runs its nodes
  kFail,           // return its error (from Session::Create or Session::Run)
};

struct SessionOptions {
  // Executors by priority, by backend name (backends/backend_registry.h); nodes an accelerator
  // cannot run fall back to later ones. "cpu" is always available. "opencl" (alias "gpu") is
  // the GPU executor, "opencl:N" its device N; "dsp" the DSP executor (docs/dsp-target.md).
  // An accelerator that cannot start (no OpenCL platform or device) is left out with a
  // warning (Session::warnings) and the CPU runs its nodes.
  std::vector<std::string> executors = {kExecutorCpu};
  Isa cpu_max_isa = Isa::kReference;
  // Threads of the session's pool (the caller counts as one); kernels and streams share it.
  // A plan with more streams than threads runs its nodes in graph order instead.
  int num_threads = 1;
  bool profile = false;  // record per-node time (device timestamps on the GPU)
  // Each backend's own options, by type: GpuOptions (backends/opencl/gpu_options.h), DspOptions
  // (backends/dsp/dsp_options.h), ...
  BackendOptions backend_options;
  // Place by estimated cost (backends/cost_placement.h) instead of by claims alone: an
  // accelerator island whose compute plus transfers costs more than the CPU's runs on the CPU.
  bool cost_placement = false;
  // An accelerator failing (docs/faults.md): any error of an executor other than the CPU while
  // it starts, creates its kernels, allocates, copies, runs or waits (an OpenCL call's error, a
  // DSP refusal). kFallBackToCpu (the default) leaves it out for the rest of the session with
  // a warning (Session::warnings): at creation the session is built without it; in Run() the
  // session is rebuilt without it and the failed run repeated, so the caller still gets the
  // outputs. kFail returns the error. An absent device (no OpenCL platform or device) is not a
  // failure: it is left out with a warning either way.
  AcceleratorFailure on_accelerator_failure = AcceleratorFailure::kFallBackToCpu;
};

struct NodeProfile {
  std::string node;
  OpType op;
  std::string executor;
  double total_ms = 0;  // summed over runs (device time for executors that time their own)
  int64_t runs = 0;
};

// What the session allocated, for reports.
struct SessionMemory {
  uint64_t arena_bytes = 0;    // per memory domain that holds activations
  uint64_t io_bytes = 0;       // graph inputs and outputs (own buffers)
  uint64_t scratch_bytes = 0;  // kernel scratch, one buffer per stream
  int32_t streams = 1;
  bool concurrent = false;  // streams run on their own workers
};

class Session {
 public:
  ~Session();
  // `plan` defaults to ExecutionPlan::Default (one stream, no reuse). Any plan is validated
  // against the graph first.
  static Expected<std::unique_ptr<Session>> Create(std::shared_ptr<const Graph> graph,
                                                   SessionOptions options = {},
                                                   std::shared_ptr<const ExecutionPlan> plan = {});
  // The model's graph with its compiled plan.
  static Expected<std::unique_ptr<Session>> Create(const Model& model, SessionOptions options = {});

  const Graph& graph() const { return *graph_; }
  size_t num_inputs() const { return graph_->inputs().size(); }
  size_t num_outputs() const { return graph_->outputs().size(); }
  const Value& input_info(size_t i) const { return graph_->value(graph_->inputs()[i]); }
  const Value& output_info(size_t i) const { return graph_->value(graph_->outputs()[i]); }
  // Index of the graph input called `name`, or an error listing the valid names.
  Expected<size_t> InputIndex(const std::string& name) const;

  // Copies a tensor into input `index`; dtype and shape must match the model exactly.
  Status SetInput(size_t index, const HostTensor& tensor);
  // Copies `size` bytes into input `index`: its elements, dense, in its dtype (the C API's
  // caller-owned buffers). `size` must be exactly the input's.
  Status SetInputBytes(size_t index, const void* data, size_t size);
  // Executes every node. All inputs must have been set.
  Status Run();
  // Copies output `index` out (host memory).
  Expected<HostTensor> GetOutput(size_t index) const;
  // Copies output `index`'s elements (dense, `size` = exactly its element bytes) into `data`.
  Status CopyOutput(size_t index, void* data, size_t size) const;
  // Output `index`'s host buffer itself, valid until the next Run(): for outputs stored plain
  // (every graph output a compiler made; an intermediate made an output afterwards may be
  // stored blocked, which gets Unsupported: copy it out instead).
  Expected<const void*> OutputHostData(size_t index) const;

  // Convenience: sets inputs matched by name (or by position when names are empty), runs, and
  // returns every output.
  Expected<std::vector<HostTensor>> Run(const std::vector<HostTensor>& inputs);

  // Which executor each node runs on, in node order ("-" for nodes the plan elides).
  std::vector<std::string> Placement() const;
  // The session's executor called `name` ("cpu", "opencl"), or null.
  const Executor* executor(const std::string& name) const;
  // Executors asked for that could not start or failed later, with the reason (their nodes
  // run elsewhere).
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Host<->device copies each Run() makes at placement boundaries (graph I/O included).
  int64_t boundary_copies() const;
  const std::vector<NodeProfile>& profile() const { return profile_; }
  // The cost-aware placement's decisions (SessionOptions::cost_placement), else null.
  const CostPlacement* cost_placement() const {
    return cost_placement_ ? &*cost_placement_ : nullptr;
  }
  const SessionMemory& memory() const;

 private:
  struct Impl;
  Session() = default;
  // Impl built on options_.executors, leaving out accelerators that fail (per the option).
  Expected<std::unique_ptr<Impl>> Build();
  // Whether the error of `failed` moves its nodes to the CPU (else it is returned).
  bool FallsBack(const Executor* failed) const;
  // Takes executor `requested` out of options_.executors, saying why in warnings_; false when
  // it is not there (nothing left to drop: the failure is returned instead of rebuilding).
  bool Drop(const std::string& requested, const Status& why, const char* when);
  // After a failure of `failed` in Run(): a new Impl without it, the inputs carried over.
  Status FallBack(const Executor* failed, const Status& why);
  SessionOptions options_;
  std::shared_ptr<const Graph> graph_;
  std::shared_ptr<const ExecutionPlan> plan_;
  std::unique_ptr<Impl> impl_;
  std::vector<NodeProfile> profile_;
  std::vector<std::string> warnings_;
  std::optional<CostPlacement> cost_placement_;
};

}  // namespace kiln
