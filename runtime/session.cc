// Session: placement, the arena per memory domain from the plan, copies at domain
// boundaries, one step list per stream with events between them, and the run loop.
#include "runtime/session.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>

#include "ir/plan_rules.h"
#include "runtime/model.h"
#include "runtime/placement.h"

namespace kiln {
namespace {

constexpr int kHostDomain = 0;

Expected<std::unique_ptr<Executor>> MakeExecutor(const std::string& name,
                                                 const SessionOptions& options,
                                                 ThreadPool* pool) {
  if (name == kExecutorCpu) return MakeCpuExecutor(options.cpu_max_isa, pool);
  return Unsupported("executor '" + name + "' is not available in this runtime build");
}

}  // namespace

struct Session::Impl {
  std::unique_ptr<ThreadPool> pool;  // declared first: destroyed last
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<int> executor_domain;        // domain of each executor
  std::vector<Executor*> domain_executor;  // executor owning each non-host domain (host: null)
  std::vector<std::unique_ptr<DeviceBuffer>> owned;
  std::map<void*, DeviceBuffer*> handle_owner;
  std::vector<void*> arena;  // by domain: base of its activation arena (null until needed)
  // value -> domain -> handle
  std::vector<std::map<int, void*>> buffers;
  std::vector<int> home;  // domain each value is produced in
  std::vector<bool> input_set;
  SessionMemory memory;

  struct Step {
    enum Kind { kKernel, kCopy, kNoop } kind = kKernel;
    NodeId node = kNoNode;
    // kernel step
    Executor* executor = nullptr;
    std::unique_ptr<Kernel> kernel;
    std::vector<TensorView> inputs, outputs;
    void* scratch = nullptr;
    int profile_index = -1;
    // copy step
    int from = 0, to = 0;
    size_t bytes = 0;
    DeviceBuffer* from_buf = nullptr;
    DeviceBuffer* to_buf = nullptr;
    void* from_host = nullptr;
    void* to_host = nullptr;
    // events (by index into `events`) waited on before, and signalled after, this step
    std::vector<size_t> waits, signals;
  };
  std::vector<std::vector<Step>> streams;  // steps of each stream, in graph order
  std::vector<std::atomic<uint64_t>> events;
  uint64_t generation = 0;  // Run() count: an event is set when it holds the current one
  bool concurrent = false;
  std::vector<std::function<void()>> stream_bodies;  // one per stream, when concurrent
  std::vector<FunctionRef<void()>> stream_tasks;
  std::vector<Status> stream_results;

  Executor* HostExecutor() {
    for (size_t e = 0; e < executors.size(); ++e) {
      if (executor_domain[e] == kHostDomain) return executors[e].get();
    }
    return nullptr;
  }
  Executor* ExecutorOf(int domain) {
    return domain == kHostDomain ? HostExecutor() : domain_executor[static_cast<size_t>(domain)];
  }

  Expected<void*> AllocateIn(int domain, size_t bytes) {
    KILN_ASSIGN_OR_RETURN(auto buf, ExecutorOf(domain)->Allocate(bytes));
    void* h = buf->handle();
    handle_owner[h] = buf.get();
    owned.push_back(std::move(buf));
    return h;
  }

  // Where value `v` lives in `domain`: its arena slot when planned, else its own buffer.
  Expected<void*> BufferFor(const Graph& g, const MemoryPlan& plan, ValueId v, int domain) {
    const int64_t off = plan.offsets[static_cast<size_t>(v)];
    if (off == MemoryPlan::kNotPlanned) {
      const size_t bytes = g.value(v).byte_size();
      if (graph_io(g, v)) memory.io_bytes += bytes;
      return AllocateIn(domain, bytes);
    }
    void*& base = arena[static_cast<size_t>(domain)];
    if (base == nullptr) {
      KILN_ASSIGN_OR_RETURN(base, AllocateIn(domain, plan.arena_bytes));
    }
    if (domain != kHostDomain) {
      return Unsupported("activation arenas off the host need sub-buffers (not in this build)");
    }
    return static_cast<uint8_t*>(base) + off;
  }
  static bool graph_io(const Graph& g, ValueId v) {
    return std::find(g.inputs().begin(), g.inputs().end(), v) != g.inputs().end() ||
           std::find(g.outputs().begin(), g.outputs().end(), v) != g.outputs().end();
  }

  // Ensures `v` has a buffer in `domain`, adding copy steps to `stream` when it lives elsewhere.
  Status EnsureIn(const Graph& g, const MemoryPlan& plan, ValueId v, int domain,
                  std::vector<Step>& stream) {
    auto& m = buffers[static_cast<size_t>(v)];
    if (m.count(domain)) return Status::Ok();
    const int src = home[static_cast<size_t>(v)];
    if (src != kHostDomain && domain != kHostDomain) {
      KILN_RETURN_IF_ERROR(EnsureIn(g, plan, v, kHostDomain, stream));  // stage through host
    }
    const int from = (src != kHostDomain && domain != kHostDomain) ? kHostDomain : src;
    KILN_ASSIGN_OR_RETURN(void* h, BufferFor(g, plan, v, domain));
    m[domain] = h;
    Step s;
    s.kind = Step::kCopy;
    s.from = from;
    s.to = domain;
    s.bytes = g.value(v).byte_size();
    s.from_host = m[from];
    s.to_host = h;
    s.from_buf = from == kHostDomain ? nullptr : handle_owner[m[from]];
    s.to_buf = domain == kHostDomain ? nullptr : handle_owner[h];
    stream.push_back(std::move(s));
    return Status::Ok();
  }

  Status RunStep(Step& step, const Graph& g, std::vector<NodeProfile>& profile);
  Status RunStream(std::vector<Step>& steps, const Graph& g, std::vector<NodeProfile>& profile);
};

Session::~Session() = default;

Expected<std::unique_ptr<Session>> Session::Create(const Model& model, SessionOptions options) {
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
  s->impl_ = std::make_unique<Impl>();
  Impl& im = *s->impl_;
  const Graph& g = *s->graph_;
  const MemoryPlan& mp = s->plan_->memory;
  const Schedule& sched = s->plan_->schedule;

  im.pool = std::make_unique<ThreadPool>(options.num_threads);
  bool has_cpu = false;
  im.domain_executor.push_back(nullptr);  // host domain
  for (const std::string& name : options.executors) {
    KILN_ASSIGN_OR_RETURN(auto ex, MakeExecutor(name, options, im.pool.get()));
    has_cpu |= ex->host_memory();
    im.executor_domain.push_back(ex->host_memory() ? kHostDomain
                                                   : static_cast<int>(im.domain_executor.size()));
    if (!ex->host_memory()) im.domain_executor.push_back(ex.get());
    im.executors.push_back(std::move(ex));
  }
  if (!has_cpu) {  // CPU fallback is always there
    KILN_ASSIGN_OR_RETURN(auto ex, MakeExecutor(kExecutorCpu, options, im.pool.get()));
    im.executor_domain.push_back(kHostDomain);
    im.executors.push_back(std::move(ex));
  }
  im.arena.assign(im.domain_executor.size(), nullptr);
  std::vector<bool> elided(g.num_nodes(), false);
  for (NodeId e : mp.elided) elided[static_cast<size_t>(e)] = true;

  // Elided nodes run nowhere; the rest are placed by executor claims.
  std::vector<Executor*> by_priority;
  for (auto& e : im.executors) by_priority.push_back(e.get());
  KILN_ASSIGN_OR_RETURN(std::vector<size_t> placement, PlaceNodes(g, by_priority, elided));

  im.buffers.resize(g.num_values());
  im.home.assign(g.num_values(), kHostDomain);
  for (size_t v = 0; v < g.num_values(); ++v) {
    const Value& val = g.value(static_cast<ValueId>(v));
    if (val.is_constant()) {  // used in place: no copy for host executors
      im.buffers[v][kHostDomain] = const_cast<uint8_t*>(val.constant->data());
    }
  }
  for (ValueId in : g.inputs()) {
    KILN_ASSIGN_OR_RETURN(void* h, im.BufferFor(g, mp, in, kHostDomain));
    im.buffers[static_cast<size_t>(in)][kHostDomain] = h;
  }
  im.input_set.assign(g.inputs().size(), false);

  im.streams.resize(static_cast<size_t>(sched.num_streams));
  std::vector<size_t> scratch_need(static_cast<size_t>(sched.num_streams), 0);
  for (size_t n = 0; n < g.num_nodes(); ++n) {
    const auto id = static_cast<NodeId>(n);
    const Node& node = g.node(id);
    auto& stream = im.streams[static_cast<size_t>(sched.stream[n])];
    if (elided[n]) {
      // Its output already holds the result (a view or a Concat written in place): give it
      // the arena slot and keep a no-op step for the schedule's events.
      for (ValueId out : node.outputs) {
        if (out == kNoValue) continue;
        KILN_ASSIGN_OR_RETURN(void* h, im.BufferFor(g, mp, out, kHostDomain));
        im.buffers[static_cast<size_t>(out)][kHostDomain] = h;
      }
      for (ValueId in : node.inputs) {
        if (in != kNoValue && im.home[static_cast<size_t>(in)] != kHostDomain) {
          return Unsupported("the plan elides node '" + node.name +
                             "' across memory domains; recompile with --disable-pass "
                             "memory-alias");
        }
      }
      Impl::Step step;
      step.kind = Impl::Step::kNoop;
      step.node = id;
      stream.push_back(std::move(step));
      continue;
    }
    Executor* ex = im.executors[placement[n]].get();
    const int domain = im.executor_domain[placement[n]];
    Impl::Step step;
    step.node = id;
    step.executor = ex;
    for (ValueId in : node.inputs) {
      TensorView view;
      if (in != kNoValue) {
        KILN_RETURN_IF_ERROR(im.EnsureIn(g, mp, in, domain, stream));
        view.data = im.buffers[static_cast<size_t>(in)][domain];
        view.dtype = g.value(in).dtype;
        view.shape = &g.value(in).shape;
      }
      step.inputs.push_back(view);
    }
    for (ValueId out : node.outputs) {
      TensorView view;
      if (out != kNoValue) {
        KILN_ASSIGN_OR_RETURN(void* h, im.BufferFor(g, mp, out, domain));
        im.buffers[static_cast<size_t>(out)][domain] = h;
        im.home[static_cast<size_t>(out)] = domain;
        view.data = h;
        view.dtype = g.value(out).dtype;
        view.shape = &g.value(out).shape;
      }
      step.outputs.push_back(view);
    }
    KILN_ASSIGN_OR_RETURN(step.kernel, ex->CreateKernel(g, node));
    // Kernels of one stream run one at a time: they share the stream's scratch.
    auto& need = scratch_need[static_cast<size_t>(sched.stream[n])];
    need = std::max(need, step.kernel->ScratchBytes());
    if (domain != kHostDomain && step.kernel->ScratchBytes()) {
      KILN_ASSIGN_OR_RETURN(step.scratch, im.AllocateIn(domain, step.kernel->ScratchBytes()));
    }
    if (options.profile) {
      step.profile_index = static_cast<int>(s->profile_.size());
      s->profile_.push_back({node.name, node.op, ex->name(), 0.0, 0});
    }
    stream.push_back(std::move(step));
    // Graph outputs produced off the host are copied back right after their producer.
    for (ValueId out : node.outputs) {
      if (out != kNoValue && Impl::graph_io(g, out)) {
        KILN_RETURN_IF_ERROR(im.EnsureIn(g, mp, out, kHostDomain, stream));
      }
    }
  }
  for (ValueId out : g.outputs()) {  // outputs that are inputs or constants
    KILN_RETURN_IF_ERROR(im.EnsureIn(g, mp, out, kHostDomain, im.streams[0]));
  }
  // Host scratch: one buffer per stream, as large as its largest kernel needs.
  for (size_t st = 0; st < im.streams.size(); ++st) {
    if (scratch_need[st] == 0) continue;
    KILN_ASSIGN_OR_RETURN(void* scratch, im.AllocateIn(kHostDomain, scratch_need[st]));
    im.memory.scratch_bytes += scratch_need[st];
    for (auto& step : im.streams[st]) {
      if (step.kind == Impl::Step::kKernel && step.scratch == nullptr &&
          step.executor->host_memory()) {
        step.scratch = scratch;
      }
    }
  }
  // Events: wait before the waiting node's step, signal after the signalling node's.
  im.events = std::vector<std::atomic<uint64_t>>(sched.events.size());
  im.concurrent = sched.num_streams > 1 && im.pool->CanRunConcurrently(im.streams.size());
  if (im.concurrent) {
    std::vector<Impl::Step*> node_step(g.num_nodes(), nullptr);
    for (auto& stream : im.streams) {
      for (auto& step : stream) {
        if (step.kind != Impl::Step::kCopy) node_step[static_cast<size_t>(step.node)] = &step;
      }
    }
    for (size_t e = 0; e < sched.events.size(); ++e) {
      node_step[static_cast<size_t>(sched.events[e].wait)]->waits.push_back(e);
      node_step[static_cast<size_t>(sched.events[e].signal)]->signals.push_back(e);
    }
    // The stream workers' bodies, made once: Run() allocates nothing.
    Session* self = s.get();
    im.stream_results.resize(im.streams.size());
    for (size_t st = 0; st < im.streams.size(); ++st) {
      im.stream_bodies.emplace_back([self, &im, st] {
        im.stream_results[st] = im.RunStream(im.streams[st], *self->graph_, self->profile_);
      });
    }
    im.stream_tasks.assign(im.stream_bodies.begin(), im.stream_bodies.end());
  }
  im.memory.arena_bytes = mp.arena_bytes;
  im.memory.streams = sched.num_streams;
  im.memory.concurrent = im.concurrent;
  return s;
}

const SessionMemory& Session::memory() const { return impl_->memory; }

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

Status Session::Impl::RunStep(Step& step, const Graph& g, std::vector<NodeProfile>& profile) {
  if (step.kind == Step::kNoop) return Status::Ok();
  if (step.kind == Step::kCopy) {
    if (step.to == kHostDomain) {
      if (step.from == kHostDomain) {
        if (step.to_host != step.from_host) std::memcpy(step.to_host, step.from_host, step.bytes);
        return Status::Ok();
      }
      Executor* ex = domain_executor[static_cast<size_t>(step.from)];
      KILN_RETURN_IF_ERROR(ex->Synchronize());
      return ex->Download(*step.from_buf, step.to_host, step.bytes);
    }
    return domain_executor[static_cast<size_t>(step.to)]->Upload(step.from_host, *step.to_buf,
                                                                step.bytes);
  }
  const auto t0 = std::chrono::steady_clock::now();
  Status st = step.executor->Execute(*step.kernel, step.inputs, step.outputs, step.scratch);
  if (!st.ok()) {
    const Node& node = g.node(step.node);
    return st.WithContext(DescribeNode(node));
  }
  if (step.profile_index >= 0) {
    KILN_RETURN_IF_ERROR(step.executor->Synchronize());
    const auto t1 = std::chrono::steady_clock::now();
    NodeProfile& p = profile[static_cast<size_t>(step.profile_index)];
    p.total_ms += std::chrono::duration<double, std::milli>(t1 - t0).count();
    p.runs++;
  }
  return Status::Ok();
}

Status Session::Impl::RunStream(std::vector<Step>& steps, const Graph& g,
                                std::vector<NodeProfile>& profile) {
  Status first;
  for (Step& step : steps) {
    for (size_t e : step.waits) {
      // Waiting lends this thread to the other streams' kernels (their ParallelFor shares).
      pool->HelpUntil(
          [&] { return events[e].load(std::memory_order_acquire) == generation; });
    }
    // After a failure the stream still signals its events, so no other stream waits forever.
    if (first.ok()) first = RunStep(step, g, profile);
    for (size_t e : step.signals) events[e].store(generation, std::memory_order_release);
    if (!step.signals.empty()) pool->Wake();
  }
  return first;
}

Status Session::Run() {
  Impl& im = *impl_;
  for (size_t i = 0; i < num_inputs(); ++i) {
    if (!im.input_set[i]) return InvalidArgument("input '" + input_info(i).name + "' not set");
  }
  ++im.generation;
  if (!im.concurrent) {
    // One stream, or too few threads for the streams: every step in graph order.
    if (im.streams.size() == 1) {
      for (auto& step : im.streams[0]) KILN_RETURN_IF_ERROR(im.RunStep(step, *graph_, profile_));
    } else {
      std::vector<size_t> next(im.streams.size(), 0);
      for (size_t n = 0; n < graph_->num_nodes(); ++n) {
        const auto st = static_cast<size_t>(plan_->schedule.stream[n]);
        auto& steps = im.streams[st];
        // Copies queued before this node's step, then the step itself.
        while (next[st] < steps.size()) {
          Impl::Step& step = steps[next[st]++];
          KILN_RETURN_IF_ERROR(im.RunStep(step, *graph_, profile_));
          if (step.kind != Impl::Step::kCopy && step.node == static_cast<NodeId>(n)) break;
        }
      }
      for (size_t st = 0; st < im.streams.size(); ++st) {  // trailing output copies
        while (next[st] < im.streams[st].size()) {
          KILN_RETURN_IF_ERROR(im.RunStep(im.streams[st][next[st]++], *graph_, profile_));
        }
      }
    }
  } else {
    im.pool->RunTasks(im.stream_tasks);
    for (const Status& r : im.stream_results) KILN_RETURN_IF_ERROR(r);
  }
  for (auto& ex : im.executors) KILN_RETURN_IF_ERROR(ex->Synchronize());
  return Status::Ok();
}

Expected<HostTensor> Session::GetOutput(size_t index) const {
  if (index >= num_outputs()) return InvalidArgument("output index out of range");
  const Value& v = output_info(index);
  HostTensor t(v.name, v.dtype, v.shape);
  const void* src = impl_->buffers[static_cast<size_t>(graph_->outputs()[index])].at(kHostDomain);
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
