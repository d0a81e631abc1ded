// Session: placement, the arena per memory domain from the plan, copies at domain
// boundaries, one step list per stream with events between them, and the run loop.
#include "runtime/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>

#include "backends/backend_registry.h"
#include "ir/plan_rules.h"
#include "runtime/executor_factory.h"
#include "runtime/model.h"
#include "runtime/placement.h"

namespace kiln {
namespace {

constexpr int kHostDomain = 0;

}  // namespace

struct Session::Impl {
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

  Expected<DeviceBuffer*> AllocateIn(int domain, size_t bytes) {
    Executor* ex = ExecutorOf(domain);
    KILN_ASSIGN_OR_RETURN(auto buf, Blame(ex, ex->Allocate(bytes)));
    owned.push_back(std::move(buf));
    return owned.back().get();
  }

  // Where value `v` lives in `domain`: its arena slot when planned, else its own buffer.
  Expected<void*> BufferFor(const Graph& g, const MemoryPlan& plan, ValueId v, int domain) {
    const Value& val = g.value(v);
    const size_t bytes = val.byte_size();
    const int64_t off = plan.offsets[static_cast<size_t>(v)];
    if (off == MemoryPlan::kNotPlanned) {
      if (graph_io(g, v)) memory.io_bytes += bytes;
      KILN_ASSIGN_OR_RETURN(DeviceBuffer * buf, AllocateIn(domain, bytes));
      return Blame(ExecutorOf(domain), buf->Region(0, bytes, val.dtype));
    }
    DeviceBuffer*& arena_buf = arena[static_cast<size_t>(domain)];
    if (arena_buf == nullptr) {
      KILN_ASSIGN_OR_RETURN(arena_buf, AllocateIn(domain, plan.arena_bytes));
    }
    return Blame(ExecutorOf(domain), arena_buf->Region(static_cast<size_t>(off), bytes, val.dtype));
  }
  static bool graph_io(const Graph& g, ValueId v) {
    return std::find(g.inputs().begin(), g.inputs().end(), v) != g.inputs().end() ||
           std::find(g.outputs().begin(), g.outputs().end(), v) != g.outputs().end();
  }

  // Ensures `v` has a buffer in `domain`. A value produced in another domain gets a copy
  // (into its own offset there: the same offsets in every arena), staged through the host
  // between two devices: after its producer's kernel, or at the start of each run for a graph
  // input. An elided node's output is present once its parts are; a constant is copied once,
  // now.
  Status EnsureIn(const Graph& g, const MemoryPlan& plan, ValueId v, int domain) {
    auto& m = buffers[static_cast<size_t>(v)];
    if (m.count(domain)) return Status::Ok();
    const Value& val = g.value(v);
    if (!parts[static_cast<size_t>(v)].empty()) {
      for (ValueId p : parts[static_cast<size_t>(v)]) {
        KILN_RETURN_IF_ERROR(EnsureIn(g, plan, p, domain));
      }
      KILN_ASSIGN_OR_RETURN(m[domain], BufferFor(g, plan, v, domain));
      return Status::Ok();
    }
    const int src = home[static_cast<size_t>(v)];
    if (src != kHostDomain && domain != kHostDomain) {
      KILN_RETURN_IF_ERROR(EnsureIn(g, plan, v, kHostDomain));
    }
    KILN_ASSIGN_OR_RETURN(void* h, BufferFor(g, plan, v, domain));
    m[domain] = h;
    if (val.is_constant()) {  // constants live on the host: one upload at creation
      Executor* ex = ExecutorOf(domain);
      return Blame(ex, ex->Upload(m.at(kHostDomain), h, val.byte_size(), val.dtype, 0));
    }
    Copy c;
    c.upload = domain != kHostDomain;
    c.executor = ExecutorOf(c.upload ? domain : src);
    c.host = c.upload ? m.at(kHostDomain) : h;
    c.device = c.upload ? h : m.at(src);
    c.bytes = val.byte_size();
    c.dtype = val.dtype;
    ++copies_per_run;
    if (val.producer == kNoNode) {
      prologue.push_back(c);
    } else {
      const auto [st, index] = step_of[static_cast<size_t>(val.producer)];
      streams[st][index].copies_after.push_back(c);
    }
    return Status::Ok();
  }

  static Status RunCopy(const Copy& c, int stream) {
    return c.upload ? c.executor->Upload(c.host, c.device, c.bytes, c.dtype, stream)
                    : c.executor->Download(c.device, c.host, c.bytes, c.dtype, stream);
  }

  // Creation, step by step (Session::Create).

  // 1. The executors asked for, by priority, and the CPU after them when it was not asked
  // for; an accelerator whose device is absent is left out with a warning, one that fails to
  // start too when the session falls back.
  Status StartExecutors(const Graph& g, const Schedule& sched, const SessionOptions& options,
                        std::vector<std::string>& warnings) {
    bool has_cpu = false;
    domain_executor.push_back(nullptr);  // host domain
    for (const std::string& name : options.executors) {
      auto made = MakeExecutor(name, options, pool.get());
      if (!made.ok()) {
        // An accelerator that is not there is not fatal: the CPU runs its nodes.
        if (made.status().code() == StatusCode::kNotFound) {
          warnings.push_back(made.status().message());
          continue;
        }
        // Nor one that fails to start, unless asked to fail (a bad name or device number is
        // the caller's error either way).
        if (made.status().code() != StatusCode::kInvalidArgument && name != kExecutorCpu &&
            options.on_accelerator_failure == AcceleratorFailure::kFallBackToCpu) {
          warnings.push_back("executor '" + name + "' failed at session creation (" +
                             made.status().message() + ")");
          continue;
        }
        return made.status();
      }
      std::unique_ptr<Executor> ex = std::move(made).value();
      has_cpu |= ex->name() == kExecutorCpu;  // the DSP shares host memory, not CPU ops
      executor_domain.push_back(ex->host_memory() ? kHostDomain
                                                  : static_cast<int>(domain_executor.size()));
      if (!ex->host_memory()) {
        domain_executor.push_back(ex.get());
        async.push_back(ex.get());
      }
      executors.push_back(std::move(ex));
      requested.push_back(name);
    }
    if (!has_cpu) {  // CPU fallback is always there
      KILN_ASSIGN_OR_RETURN(auto ex, MakeExecutor(kExecutorCpu, options, pool.get()));
      executor_domain.push_back(kHostDomain);
      executors.push_back(std::move(ex));
      requested.push_back(kExecutorCpu);
    }
    for (Executor* ex : async) {
      KILN_RETURN_IF_ERROR(
          Blame(ex, ex->Configure(sched.num_streams, sched.events.size(),
                                  options.profile ? static_cast<int>(g.num_nodes()) : 0)));
    }
    arena.assign(domain_executor.size(), nullptr);
    return Status::Ok();
  }

  // 2. The executor of each node (an index into `executors`; elided nodes run nowhere).
  Expected<std::vector<size_t>> Place(const Graph& g, const std::vector<bool>& elided,
                                      const SessionOptions& options,
                                      std::optional<CostPlacement>* cost_placement) {
    // Elided nodes run nowhere; the rest are placed by executor claims.
    std::vector<Executor*> by_priority;
    for (auto& e : executors) by_priority.push_back(e.get());
    std::vector<std::string> preferred;
    if (options.cost_placement) {
      std::vector<std::string> names;
      for (Executor* e : by_priority) names.push_back(e->name());
      KILN_ASSIGN_OR_RETURN(*cost_placement,
                            PlaceByCost(g, names, options.backend_options, elided));
      preferred = (*cost_placement)->placement;
    }
    return PlaceNodes(g, by_priority, elided, preferred);
  }

  // 3. Constants used in place on the host, and the graph inputs' buffers.
  Status BindConstantsAndInputs(const Graph& g, const MemoryPlan& mp) {
    buffers.resize(g.num_values());
    parts.resize(g.num_values());
    home.assign(g.num_values(), kHostDomain);
    for (size_t v = 0; v < g.num_values(); ++v) {
      const Value& val = g.value(static_cast<ValueId>(v));
      if (val.is_constant()) {  // used in place: no copy for host executors
        buffers[v][kHostDomain] = const_cast<uint8_t*>(val.constant->data());
      }
    }
    for (ValueId in : g.inputs()) {
      KILN_ASSIGN_OR_RETURN(void* h, BufferFor(g, mp, in, kHostDomain));
      buffers[static_cast<size_t>(in)][kHostDomain] = h;
    }
    input_set.assign(g.inputs().size(), false);
    return Status::Ok();
  }

  // 4. One step per node on its stream: its kernel, created and prepared by its executor, its
  // input and output views, copies at placement boundaries, the events it waits on and
  // signals. Returns the host scratch each stream needs.
  Expected<std::vector<size_t>> BuildSteps(const Graph& g, const ExecutionPlan& plan,
                                           const std::vector<size_t>& placement,
                                           const std::vector<bool>& elided, bool profile_on,
                                           std::vector<NodeProfile>& profile) {
    const MemoryPlan& mp = plan.memory;
    const Schedule& sched = plan.schedule;
    streams.resize(static_cast<size_t>(sched.num_streams));
    step_of.resize(g.num_nodes());
    std::vector<size_t> scratch_need(static_cast<size_t>(sched.num_streams), 0);
    std::vector<int> profile_slots(executors.size(), 0);
    for (size_t n = 0; n < g.num_nodes(); ++n) {
      const auto id = static_cast<NodeId>(n);
      const Node& node = g.node(id);
      const int st = sched.stream[n];
      auto& stream = streams[static_cast<size_t>(st)];
      step_of[n] = {static_cast<size_t>(st), stream.size()};
      if (elided[n]) {
        // Its output already holds the result (a view or a Concat written in place): its bytes
        // are its inputs', in whichever domain reads it. A no-op step keeps the events.
        // (A view's bytes are its data input's; its other inputs, such as Reshape's shape, are
        // not part of it.)
        const size_t num_parts = node.op == OpType::kConcat ? node.inputs.size() : 1;
        for (ValueId out : node.outputs) {
          if (out == kNoValue) continue;
          for (size_t i = 0; i < num_parts && i < node.inputs.size(); ++i) {
            if (node.inputs[i] != kNoValue)
              parts[static_cast<size_t>(out)].push_back(node.inputs[i]);
          }
        }
        Impl::Step step;
        step.kind = Impl::Step::kNoop;
        step.node = id;
        step.stream = st;
        stream.push_back(std::move(step));
      } else {
        const size_t e = placement[n];
        Executor* ex = executors[e].get();
        const int domain = executor_domain[e];
        Impl::Step step;
        step.node = id;
        step.stream = st;
        step.executor = ex;
        KILN_ASSIGN_OR_RETURN(step.kernel, Blame(ex, ex->CreateKernel(g, node)));
        for (ValueId in : node.inputs) {
          TensorView view;
          if (in != kNoValue) {
            view.dtype = g.value(in).dtype;
            view.shape = &g.value(in).shape;
            if (!(g.value(in).is_constant() && ex->binds_constants())) {
              KILN_RETURN_IF_ERROR(EnsureIn(g, mp, in, domain));
              view.data = buffers[static_cast<size_t>(in)][domain];
            }
          }
          step.inputs.push_back(view);
        }
        for (ValueId out : node.outputs) {
          TensorView view;
          if (out != kNoValue) {
            KILN_ASSIGN_OR_RETURN(void* h, BufferFor(g, mp, out, domain));
            buffers[static_cast<size_t>(out)][domain] = h;
            home[static_cast<size_t>(out)] = domain;
            view.data = h;
            view.dtype = g.value(out).dtype;
            view.shape = &g.value(out).shape;
          }
          step.outputs.push_back(view);
        }
        // Kernels of one stream run one at a time: they share the stream's scratch.
        auto& need = scratch_need[static_cast<size_t>(st)];
        if (domain == kHostDomain) need = std::max(need, step.kernel->ScratchBytes());
        if (domain != kHostDomain && step.kernel->ScratchBytes()) {
          KILN_ASSIGN_OR_RETURN(DeviceBuffer * buf,
                                AllocateIn(domain, step.kernel->ScratchBytes()));
          KILN_ASSIGN_OR_RETURN(step.scratch, Blame(ex, buf->Region(0, step.kernel->ScratchBytes(),
                                                                    DType::kUndefined)));
        }
        if (profile_on) {
          step.profile_index = static_cast<int>(profile.size());
          if (domain != kHostDomain) step.profile_slot = profile_slots[e]++;
          profile.push_back({node.name, node.op, ex->name(), 0.0, 0});
        }
        stream.push_back(std::move(step));
        // Graph outputs produced off the host are copied back right after their producer.
        for (ValueId out : node.outputs) {
          if (out != kNoValue && Impl::graph_io(g, out)) {
            KILN_RETURN_IF_ERROR(EnsureIn(g, mp, out, kHostDomain));
          }
        }
      }
      for (size_t ev = 0; ev < sched.events.size(); ++ev) {
        if (sched.events[ev].wait == id) stream.back().waits.push_back(ev);
        if (sched.events[ev].signal == id) stream.back().signals.push_back(ev);
      }
    }
    for (ValueId out : g.outputs()) {  // outputs that are inputs or constants: on the host
      KILN_RETURN_IF_ERROR(EnsureIn(g, mp, out, kHostDomain));
    }
    return scratch_need;
  }

  // 5. Host scratch: one buffer per stream, as large as its largest kernel needs.
  Status AllocateHostScratch(const std::vector<size_t>& scratch_need) {
    for (size_t st = 0; st < streams.size(); ++st) {
      if (scratch_need[st] == 0) continue;
      KILN_ASSIGN_OR_RETURN(DeviceBuffer * buf, AllocateIn(kHostDomain, scratch_need[st]));
      KILN_ASSIGN_OR_RETURN(void* scratch, buf->Region(0, scratch_need[st], DType::kUndefined));
      memory.scratch_bytes += scratch_need[st];
      for (auto& step : streams[st]) {
        if (step.kind == Impl::Step::kKernel && step.scratch == nullptr &&
            step.executor->host_memory()) {
          step.scratch = scratch;
        }
      }
    }
    return Status::Ok();
  }

  // 6. The schedule's events and, when the streams run concurrently, their workers' bodies.
  void PrepareStreams(const Schedule& sched, Session* self) {
    events = std::vector<std::atomic<uint64_t>>(sched.events.size());
    concurrent = sched.num_streams > 1 && pool->CanRunConcurrently(streams.size());
    if (concurrent) {
      // The stream workers' bodies, made once: Run() allocates nothing.
      stream_results.resize(streams.size());
      stream_culprits.resize(streams.size());
      for (size_t st = 0; st < streams.size(); ++st) {
        stream_bodies.emplace_back([this, self, st] {
          stream_results[st] =
              RunStream(streams[st], *self->graph_, self->profile_, &stream_culprits[st]);
        });
      }
      stream_tasks.assign(stream_bodies.begin(), stream_bodies.end());
    }
  }

  // All of creation (Session::Create's steps); on failure `culprit` names the executor.
  Status Build(const Graph& g, const ExecutionPlan& plan, const SessionOptions& options,
               Session* self, std::vector<std::string>& warnings, std::vector<NodeProfile>& profile,
               std::optional<CostPlacement>* cost) {
    const MemoryPlan& mp = plan.memory;
    const Schedule& sched = plan.schedule;
    std::vector<bool> elided(g.num_nodes(), false);
    for (NodeId e : mp.elided) elided[static_cast<size_t>(e)] = true;
    pool = std::make_unique<ThreadPool>(options.num_threads);
    KILN_RETURN_IF_ERROR(StartExecutors(g, sched, options, warnings));
    KILN_ASSIGN_OR_RETURN(std::vector<size_t> placement, Place(g, elided, options, cost));
    KILN_RETURN_IF_ERROR(BindConstantsAndInputs(g, mp));
    KILN_ASSIGN_OR_RETURN(std::vector<size_t> scratch_need,
                          BuildSteps(g, plan, placement, elided, options.profile, profile));
    KILN_RETURN_IF_ERROR(AllocateHostScratch(scratch_need));
    PrepareStreams(sched, self);
    memory.arena_bytes = mp.arena_bytes;
    memory.streams = sched.num_streams;
    memory.concurrent = concurrent;
    return Status::Ok();
  }

  // A failing step names the executor it failed in through `culprit`.
  Status RunStep(Step& step, const Graph& g, std::vector<NodeProfile>& profile, Executor** culprit);
  Status RunStream(std::vector<Step>& steps, const Graph& g, std::vector<NodeProfile>& profile,
                   Executor** culprit);
  Status RunOnce(const Graph& g, std::vector<NodeProfile>& profile, Executor** culprit);
};

Session::~Session() = default;

Expected<std::unique_ptr<Session>> Session::Create(const Model& model, SessionOptions options) {
  const ModelPayloads payloads{model.kernel_binaries(), model.dsp_programs()};
  for (const Backend* b : Backends()) b->AdoptFromModel(payloads, options.backend_options);
  return Create(model.graph(), std::move(options), model.plan());
}

Expected<std::unique_ptr<Session>> Session::Create(std::shared_ptr<const Graph> graph,
                                                   SessionOptions options,
                                                   std::shared_ptr<const ExecutionPlan> plan) {
  if (!graph) return InvalidArgument("session needs a graph");
  if (options.num_threads < 1) {
    return InvalidArgument("session needs at least 1 thread, got " +
                           std::to_string(options.num_threads));
  }
  if (!plan) plan = std::make_shared<const ExecutionPlan>(ExecutionPlan::Default(*graph));
  KILN_RETURN_IF_ERROR(ValidateExecutionPlan(*graph, *plan).WithContext("execution plan"));
  std::unique_ptr<Session> s(new Session());
  s->graph_ = std::move(graph);
  s->plan_ = std::move(plan);
  s->options_ = std::move(options);
  KILN_ASSIGN_OR_RETURN(s->impl_, s->Build());
  return s;
}

Expected<std::unique_ptr<Session::Impl>> Session::Build() {
  for (;;) {
    auto im = std::make_unique<Impl>();
    std::vector<std::string> warnings;
    std::vector<NodeProfile> profile;
    std::optional<CostPlacement> cost;
    const Status st = im->Build(*graph_, *plan_, options_, this, warnings, profile, &cost);
    if (st.ok()) {
      for (std::string& w : warnings) {  // a rebuild meets the absent devices again
        if (std::find(warnings_.begin(), warnings_.end(), w) == warnings_.end()) {
          warnings_.push_back(std::move(w));
        }
      }
      profile_ = std::move(profile);
      cost_placement_ = std::move(cost);
      return im;
    }
    if (!FallsBack(im->culprit)) return st;
    // Built again from the start without it: its nodes are placed, and their buffers bound,
    // as if it had never been asked for.
    if (!Drop(im->RequestedName(im->culprit), st, "at session creation")) return st;
  }
}

bool Session::FallsBack(const Executor* failed) const {
  return options_.on_accelerator_failure == AcceleratorFailure::kFallBackToCpu &&
         failed != nullptr && failed->name() != kExecutorCpu;
}

bool Session::Drop(const std::string& requested, const Status& why, const char* when) {
  auto& names = options_.executors;
  const auto it = std::find(names.begin(), names.end(), requested);
  if (it == names.end()) return false;
  names.erase(it);
  warnings_.push_back("executor '" + requested + "' failed " + when + " (" + why.message() + ")");
  return true;
}

Status Session::FallBack(const Executor* failed, const Status& why) {
  Impl& old = *impl_;
  std::vector<std::optional<std::vector<uint8_t>>> inputs(num_inputs());
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (!old.input_set[i]) continue;
    const auto* src = static_cast<const uint8_t*>(
        old.buffers[static_cast<size_t>(graph_->inputs()[i])].at(kHostDomain));
    inputs[i].emplace(src, src + input_info(i).byte_size());
  }
  if (!Drop(old.RequestedName(failed), why, "while running")) return why;
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<Impl> fresh, Build());
  impl_ = std::move(fresh);  // the failed executor goes with the old steps
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (!inputs[i]) continue;
    void* dst = impl_->buffers[static_cast<size_t>(graph_->inputs()[i])][kHostDomain];
    if (!inputs[i]->empty()) std::memcpy(dst, inputs[i]->data(), inputs[i]->size());
    impl_->input_set[i] = true;
  }
  return Status::Ok();
}

const SessionMemory& Session::memory() const { return impl_->memory; }
int64_t Session::boundary_copies() const { return impl_->copies_per_run; }

const Executor* Session::executor(const std::string& name) const {
  for (const auto& ex : impl_->executors) {
    if (ex->name() == name) return ex.get();
  }
  return nullptr;
}

Expected<size_t> Session::InputIndex(const std::string& name) const {
  std::string names;
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (input_info(i).name == name) return i;
    names += (i ? ", " : "") + input_info(i).name;
  }
  return NotFound("model has no input '" + name + "' (inputs: " + names + ")");
}

Status Session::SetInput(size_t index, const HostTensor& t) {
  if (index >= num_inputs()) return InvalidArgument("input index out of range");
  const Value& v = input_info(index);
  if (t.dtype != v.dtype) {
    return InvalidArgument("input '" + v.name + "' expects dtype " +
                           std::string(DTypeName(v.dtype)) + ", got " +
                           std::string(DTypeName(t.dtype)));
  }
  if (t.shape != v.shape) {
    return InvalidArgument("input '" + v.name + "' expects shape " + ShapeToString(v.shape) +
                           ", got " + ShapeToString(t.shape));
  }
  if (t.bytes.size() != v.byte_size()) {
    return InvalidArgument("input '" + v.name + "' holds " + std::to_string(t.bytes.size()) +
                           " bytes, expected " + std::to_string(v.byte_size()));
  }
  void* dst = impl_->buffers[static_cast<size_t>(graph_->inputs()[index])][kHostDomain];
  if (!t.bytes.empty()) std::memcpy(dst, t.bytes.data(), t.bytes.size());
  impl_->input_set[index] = true;
  return Status::Ok();
}

Status Session::Impl::RunStep(Step& step, const Graph& g, std::vector<NodeProfile>& profile,
                              Executor** culprit) {
  // Queued work of another stream that this node waits for (host-side order is RunStream's).
  for (size_t e : step.waits) {
    for (Executor* ex : async) {
      if (Status st = ex->DeviceWait(step.stream, e); !st.ok()) {
        *culprit = ex;
        return st.WithContext(DescribeNode(g.node(step.node)));
      }
    }
  }
  Status st;
  if (step.kind == Step::kKernel) {
    const auto t0 = std::chrono::steady_clock::now();
    st = step.executor->Execute(*step.kernel, step.inputs, step.outputs, step.scratch,
                                StepContext{step.stream, step.profile_slot});
    if (!st.ok()) *culprit = step.executor;
    if (st.ok() && step.profile_index >= 0 && step.profile_slot < 0) {
      const auto t1 = std::chrono::steady_clock::now();
      NodeProfile& p = profile[static_cast<size_t>(step.profile_index)];
      p.total_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
      p.runs++;
    }
  }
  for (size_t i = 0; i < step.copies_after.size() && st.ok(); ++i) {
    st = RunCopy(step.copies_after[i], step.stream).WithContext("output copy");
    if (!st.ok()) *culprit = step.copies_after[i].executor;
  }
  if (!st.ok()) {
    const Node& node = g.node(step.node);
    return st.WithContext(DescribeNode(node));
  }
  for (size_t e : step.signals) {
    for (Executor* ex : async) {
      if (Status m = ex->Mark(step.stream, e); !m.ok()) {
        *culprit = ex;
        return m.WithContext(DescribeNode(g.node(step.node)));
      }
    }
  }
  return Status::Ok();
}

Status Session::Impl::RunStream(std::vector<Step>& steps, const Graph& g,
                                std::vector<NodeProfile>& profile, Executor** culprit) {
  Status first;
  for (Step& step : steps) {
    for (size_t e : step.waits) {
      // Waiting lends this thread to the other streams' kernels (their ParallelFor shares).
      pool->HelpUntil([&] { return events[e].load(std::memory_order_acquire) == generation; });
    }
    // After a failure the stream still signals its events, so no other stream waits forever.
    if (first.ok()) first = RunStep(step, g, profile, culprit);
    for (size_t e : step.signals) events[e].store(generation, std::memory_order_release);
    if (!step.signals.empty()) pool->Wake();
  }
  return first;
}

Status Session::Run() {
  for (;;) {
    Executor* culprit = nullptr;
    const Status st = impl_->RunOnce(*graph_, profile_, &culprit);
    if (st.ok() || !FallsBack(culprit)) return st;
    // The failed run is repeated without the accelerator (a fresh start: nothing of it is
    // kept), which leaves the session's later runs on the CPU too.
    KILN_RETURN_IF_ERROR(FallBack(culprit, st));
  }
}

Status Session::Impl::RunOnce(const Graph& g, std::vector<NodeProfile>& profile,
                              Executor** culprit) {
  for (size_t i = 0; i < g.inputs().size(); ++i) {
    if (!input_set[i]) {
      return InvalidArgument("input '" + g.value(g.inputs()[i]).name + "' not set");
    }
  }
  ++generation;
  for (const Copy& c : prologue) {
    if (Status st = RunCopy(c, 0); !st.ok()) {
      *culprit = c.executor;
      return st.WithContext("input copy");
    }
  }
  if (!concurrent) {
    // One stream, or too few threads for the streams: every node in graph order.
    for (size_t n = 0; n < g.num_nodes(); ++n) {
      const auto [st, index] = step_of[n];
      KILN_RETURN_IF_ERROR(RunStep(streams[st][index], g, profile, culprit));
    }
  } else {
    std::fill(stream_culprits.begin(), stream_culprits.end(), nullptr);
    pool->RunTasks(stream_tasks);
    for (size_t st = 0; st < stream_results.size(); ++st) {
      if (!stream_results[st].ok()) {
        *culprit = stream_culprits[st];
        return stream_results[st];
      }
    }
  }
  for (auto& ex : executors) {
    if (Status st = ex->Synchronize(); !st.ok()) {
      *culprit = ex.get();
      return st;
    }
  }
  if (!profile.empty()) {  // device-timed steps: read their timestamps now that all is done
    for (const auto& stream : streams) {
      for (const auto& step : stream) {
        if (step.profile_slot < 0) continue;
        const std::optional<double> ms = step.executor->ProfiledMs(step.profile_slot);
        if (!ms) continue;
        NodeProfile& p = profile[static_cast<size_t>(step.profile_index)];
        p.total_ms += *ms;
        p.runs++;
      }
    }
  }
  return Status::Ok();
}

Expected<HostTensor> Session::GetOutput(size_t index) const {
  if (index >= num_outputs()) return InvalidArgument("output index out of range");
  const Value& v = output_info(index);
  HostTensor t(v.name, v.dtype, v.shape);
  const void* src = impl_->buffers[static_cast<size_t>(graph_->outputs()[index])].at(kHostDomain);
  if (v.layout != Layout::kPlain) {
    // A value stored blocked (an intermediate made an output after compiling, as calibration's
    // observers do): the caller gets its logical, plain elements.
    KILN_ASSIGN_OR_RETURN(t.bytes, UnpackLayout(v.layout, v.dtype, v.shape,
                                                static_cast<const uint8_t*>(src), v.byte_size()));
    return t;
  }
  if (!t.bytes.empty()) std::memcpy(t.bytes.data(), src, t.bytes.size());
  return t;
}

Expected<std::vector<HostTensor>> Session::Run(const std::vector<HostTensor>& inputs) {
  if (inputs.size() != num_inputs()) {
    return InvalidArgument("model has " + std::to_string(num_inputs()) + " inputs, got " +
                           std::to_string(inputs.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    size_t index = i;
    if (!inputs[i].name.empty()) {
      KILN_ASSIGN_OR_RETURN(index, InputIndex(inputs[i].name));
    }
    KILN_RETURN_IF_ERROR(SetInput(index, inputs[i]));
  }
  KILN_RETURN_IF_ERROR(Run());
  std::vector<HostTensor> outs;
  for (size_t i = 0; i < num_outputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(auto t, GetOutput(i));
    outs.push_back(std::move(t));
  }
  return outs;
}

std::vector<std::string> Session::Placement() const {
  std::vector<std::string> out(graph_->num_nodes(), "-");
  for (const auto& stream : impl_->streams) {
    for (const auto& step : stream) {
      if (step.kind == Impl::Step::kKernel) {
        out[static_cast<size_t>(step.node)] = step.executor->name();
      }
    }
  }
  return out;
}

}  // namespace kiln
