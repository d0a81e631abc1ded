// Session::Impl: what a built session holds (executors, buffers by memory domain, one step list
// per stream, events) and the steps that build and run it. Private to the runtime: session.cc
// (the public Session), session_build.cc (creation) and session_run.cc (the run loop).
#ifndef KILN_RUNTIME_SESSION_IMPL_H_
#define KILN_RUNTIME_SESSION_IMPL_H_

#include <algorithm>
#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/session.h"

namespace kiln {

struct Session::Impl {
  // Memory domain 0 is the host's; each executor without host memory owns one more.
  static constexpr int kHostDomain = 0;

  std::unique_ptr<ThreadPool> pool;  // declared first: destroyed last
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<std::string> requested;      // the SessionOptions::executors entry of each
  std::vector<int> executor_domain;        // domain of each executor
  std::vector<Executor*> domain_executor;  // executor owning each non-host domain (host: null)
  std::vector<Executor*> async;            // executors whose work is queued (non-host memory)
  std::vector<std::unique_ptr<DeviceBuffer>> owned;
  std::vector<DeviceBuffer*> arena;  // by domain: its activation arena (null until needed)
  // value -> domain -> handle (a host pointer in the host domain, a Region handle elsewhere)
  std::vector<std::map<int, void*>> buffers;
  std::vector<int> home;  // domain each value is produced in
  // Outputs of elided nodes: the values whose bytes are theirs (a view's input, a Concat's
  // inputs written into their slices). Present in a domain once all of those are.
  std::vector<std::vector<ValueId>> parts;
  std::vector<bool> input_set;
  SessionMemory memory;
  int64_t copies_per_run = 0;

  // A host<->device copy at a placement boundary.
  struct Copy {
    bool upload = false;
    Executor* executor = nullptr;  // owns the device side
    void* host = nullptr;
    void* device = nullptr;
    size_t bytes = 0;
    DType dtype = DType::kUndefined;
  };
  struct Step {
    enum Kind { kKernel, kNoop } kind = kKernel;
    NodeId node = kNoNode;
    int stream = 0;
    Executor* executor = nullptr;
    std::unique_ptr<Kernel> kernel;
    std::vector<TensorView> inputs, outputs;
    void* scratch = nullptr;
    int profile_index = -1;
    int profile_slot = -1;  // device-timed steps
    // Copies of this node's outputs into the other domains that read them, made right after
    // the kernel (and before the events it signals), so every reader, on any stream, finds
    // them done once it may start.
    std::vector<Copy> copies_after;
    // Schedule events waited on before this step and signalled after it.
    std::vector<size_t> waits, signals;
  };
  std::vector<std::vector<Step>> streams;          // steps of each stream, in graph order
  std::vector<std::pair<size_t, size_t>> step_of;  // by node: (stream, index) of its step
  std::vector<Copy> prologue;  // graph inputs into other domains, first thing in each run
  std::vector<std::atomic<uint64_t>> events;
  uint64_t generation = 0;  // Run() count: an event is set when it holds the current one
  bool concurrent = false;
  std::vector<std::function<void()>> stream_bodies;  // one per stream, when concurrent
  std::vector<FunctionRef<void()>> stream_tasks;
  std::vector<Status> stream_results;
  std::vector<Executor*> stream_culprits;  // per stream: the executor its failure came from
  Executor* culprit = nullptr;             // the executor a creation step failed in

  // Records the executor a creation step failed in (the first), for the fallback.
  Status Blame(Executor* ex, Status st) {
    if (!st.ok() && culprit == nullptr) culprit = ex;
    return st;
  }
  template <typename T>
  Expected<T> Blame(Executor* ex, Expected<T> r) {
    if (!r.ok() && culprit == nullptr) culprit = ex;
    return r;
  }
  const std::string& RequestedName(const Executor* ex) const {
    static const std::string kNone;
    for (size_t e = 0; e < executors.size(); ++e) {
      if (executors[e].get() == ex) return requested[e];
    }
    return kNone;
  }

  // The CPU executor allocates and copies host memory (the DSP shares it but owns none).
  Executor* HostExecutor() {
    for (size_t e = 0; e < executors.size(); ++e) {
      if (executors[e]->name() == kExecutorCpu) return executors[e].get();
    }
    for (size_t e = 0; e < executors.size(); ++e) {
      if (executor_domain[e] == kHostDomain) return executors[e].get();
    }
    return nullptr;
  }
  Executor* ExecutorOf(int domain) {
    return domain == kHostDomain ? HostExecutor() : domain_executor[static_cast<size_t>(domain)];
  }

  static bool graph_io(const Graph& g, ValueId v) {
    return std::find(g.inputs().begin(), g.inputs().end(), v) != g.inputs().end() ||
           std::find(g.outputs().begin(), g.outputs().end(), v) != g.outputs().end();
  }

  Expected<DeviceBuffer*> AllocateIn(int domain, size_t bytes);

  // Where value `v` lives in `domain`: its arena slot when planned, else its own buffer.
  Expected<void*> BufferFor(const Graph& g, const MemoryPlan& plan, ValueId v, int domain);

  // Ensures `v` has a buffer in `domain`. A value produced in another domain gets a copy
  // (into its own offset there: the same offsets in every arena), staged through the host
  // between two devices: after its producer's kernel, or at the start of each run for a graph
  // input. An elided node's output is present once its parts are; a constant is copied once,
  // now.
  Status EnsureIn(const Graph& g, const MemoryPlan& plan, ValueId v, int domain);

  static Status RunCopy(const Copy& c, int stream);

  // Creation, step by step (Session::Create).

  // 1. The executors asked for, by priority, and the CPU after them when it was not asked
  // for; an accelerator whose device is absent is left out with a warning, one that fails to
  // start too when the session falls back.
  Status StartExecutors(const Graph& g, const Schedule& sched, const SessionOptions& options,
                        std::vector<std::string>& warnings);

  // 2. The executor of each node (an index into `executors`; elided nodes run nowhere).
  Expected<std::vector<size_t>> Place(const Graph& g, const std::vector<bool>& elided,
                                      const SessionOptions& options,
                                      std::optional<CostPlacement>* cost_placement);

  // 3. Constants used in place on the host, and the graph inputs' buffers.
  Status BindConstantsAndInputs(const Graph& g, const MemoryPlan& mp);

  // 4. One step per node on its stream: its kernel, created and prepared by its executor, its
  // input and output views, copies at placement boundaries, the events it waits on and
  // signals. Returns the host scratch each stream needs.
  Expected<std::vector<size_t>> BuildSteps(const Graph& g, const ExecutionPlan& plan,
                                           const std::vector<size_t>& placement,
                                           const std::vector<bool>& elided, bool profile_on,
                                           std::vector<NodeProfile>& profile);

  // 5. Host scratch: one buffer per stream, as large as its largest kernel needs.
  Status AllocateHostScratch(const std::vector<size_t>& scratch_need);

  // 6. The schedule's events and, when the streams run concurrently, their workers' bodies.
  void PrepareStreams(const Schedule& sched, Session* self);

  // All of creation (Session::Create's steps); on failure `culprit` names the executor.
  Status Build(const Graph& g, const ExecutionPlan& plan, const SessionOptions& options,
               Session* self, std::vector<std::string>& warnings, std::vector<NodeProfile>& profile,
               std::optional<CostPlacement>* cost);

  // A failing step names the executor it failed in through `culprit`.
  Status RunStep(Step& step, const Graph& g, std::vector<NodeProfile>& profile, Executor** culprit);
  Status RunStream(std::vector<Step>& steps, const Graph& g, std::vector<NodeProfile>& profile,
                   Executor** culprit);
  Status RunOnce(const Graph& g, std::vector<NodeProfile>& profile, Executor** culprit);
};

}  // namespace kiln

#endif  // KILN_RUNTIME_SESSION_IMPL_H_
